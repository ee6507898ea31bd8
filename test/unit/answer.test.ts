import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AnswerTarget, jsonDepth, validateAnswer } from '../../src/domain/answer.ts';
import { callbackPayload } from '../../src/domain/callback-payload.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { ANSWER_TEXT_MAX_CHARS, JSON_MAX_DEPTH } from '../../src/domain/limits.ts';
import { expectBad } from '../support/domain-errors.ts';

const TEXT: AnswerTarget = { format: 'TEXT', options: null, schema: null };
const CONFIRM: AnswerTarget = { format: 'CONFIRM', options: null, schema: null };
const SELECT: AnswerTarget = { format: 'SELECT', options: ['red', 'green', '<b>blue</b>'], schema: null };
const FORM: AnswerTarget = {
  format: 'FORM',
  options: null,
  schema: {
    type: 'object',
    required: ['email'],
    properties: {
      email: { type: 'string', format: 'email' },
      count: { type: 'integer', minimum: 0 },
      a: { type: 'object', properties: { b: { type: 'string' } } },
      items: { type: 'array', items: { type: 'number' } },
    },
  },
};
const EXTERNAL: AnswerTarget = { format: 'EXTERNAL', options: null, schema: null };
const EXTERNAL_SCHEMA: AnswerTarget = {
  format: 'EXTERNAL',
  options: null,
  schema: { type: 'object', required: ['paid'], properties: { paid: { type: 'boolean' } } },
};

const nestedArrays = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};
const nestedObjects = (levels: number): Record<string, unknown> => {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
};

describe('validateAnswer: TEXT', () => {
  it('accepts a non-blank string and returns it', () => {
    expect(validateAnswer(TEXT, 'hello')).toBe('hello');
    expect(validateAnswer(TEXT, '  padded  ')).toBe('  padded  ');
  });

  it('keeps XSS-looking text verbatim', () => {
    const xss = '<script>alert(1)</script><img src=x onerror=alert(1)>';
    expect(validateAnswer(TEXT, xss)).toBe(xss);
  });

  it('rejects blank text and non-strings', () => {
    for (const a of ['', '   ', '\n', '\u200B', 5, true, null, ['x'], { text: 'x' }]) {
      expectBad(() => validateAnswer(TEXT, a), 'answer');
    }
  });

  it(`is at most ${ANSWER_TEXT_MAX_CHARS} code points (at the cap and one past)`, () => {
    const at = '🙂'.repeat(ANSWER_TEXT_MAX_CHARS);
    expect(validateAnswer(TEXT, at)).toBe(at);
    expectBad(() => validateAnswer(TEXT, `${at}x`), 'answer');
  });
});

describe('validateAnswer: CONFIRM', () => {
  it('accepts booleans only', () => {
    expect(validateAnswer(CONFIRM, true)).toBe(true);
    expect(validateAnswer(CONFIRM, false)).toBe(false);
    for (const a of ['true', 'false', 1, 0, null, 'yes', [true], { value: true }]) {
      expectBad(() => validateAnswer(CONFIRM, a), 'answer');
    }
  });
});

describe('validateAnswer: SELECT', () => {
  it('accepts a string equal to one of the options', () => {
    expect(validateAnswer(SELECT, 'green')).toBe('green');
    expect(validateAnswer(SELECT, '<b>blue</b>')).toBe('<b>blue</b>');
  });

  it('rejects anything else', () => {
    for (const a of ['Green', 'green ', 'purple', '', 0, ['red'], null, { value: 'red' }]) {
      expectBad(() => validateAnswer(SELECT, a), 'answer');
    }
  });
});

describe('validateAnswer: FORM', () => {
  it('accepts an object valid against the schema and returns it unchanged', () => {
    const a = { email: 'a@example.com', count: 2, a: { b: 'x' }, items: [1, 2.5] };
    expect(validateAnswer(FORM, a)).toBe(a);
    expect(a).toEqual({ email: 'a@example.com', count: 2, a: { b: 'x' }, items: [1, 2.5] });
  });

  it('names the failing path under answer', () => {
    expectBad(() => validateAnswer(FORM, { email: 'a@example.com', count: 'two' }), 'answer.count');
    expectBad(() => validateAnswer(FORM, { email: 'a@example.com', count: -1 }), 'answer.count');
    expectBad(() => validateAnswer(FORM, { email: 'a@example.com', a: { b: 1 } }), 'answer.a.b');
    expectBad(() => validateAnswer(FORM, { count: 1 }), 'answer.email');
    expectBad(() => validateAnswer(FORM, { email: 'not-an-email' }), 'answer.email');
    expectBad(() => validateAnswer(FORM, { email: 'a@example.com', items: [1, 'x'] }), 'answer.items[1]');
  });

  it('requires a JSON object', () => {
    for (const a of [null, 'x', 1, true, [], [{ email: 'a@example.com' }]]) {
      expectBad(() => validateAnswer(FORM, a), 'answer');
    }
  });

  it('honours draft-07 schemas', () => {
    const q: AnswerTarget = {
      format: 'FORM',
      options: null,
      schema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } },
      },
    };
    expect(validateAnswer(q, { pair: ['a', 1] })).toEqual({ pair: ['a', 1] });
    expectBad(() => validateAnswer(q, { pair: ['a', 'b'] }), 'answer.pair[1]');
  });
});

describe('validateAnswer: EXTERNAL', () => {
  it('accepts any JSON object when no schema is set', () => {
    expect(validateAnswer(EXTERNAL, { anything: [1, { x: null }] })).toEqual({ anything: [1, { x: null }] });
    expect(validateAnswer(EXTERNAL, {})).toEqual({});
  });

  it('requires a JSON object', () => {
    for (const a of [null, 'paid', true, 3, ['paid']]) expectBad(() => validateAnswer(EXTERNAL, a), 'answer');
  });

  it('validates against the schema when one is set', () => {
    expect(validateAnswer(EXTERNAL_SCHEMA, { paid: true, extra: 1 })).toEqual({ paid: true, extra: 1 });
    expectBad(() => validateAnswer(EXTERNAL_SCHEMA, { paid: 'yes' }), 'answer.paid');
    expectBad(() => validateAnswer(EXTERNAL_SCHEMA, {}), 'answer.paid');
  });
});

describe('validateAnswer: depth and JSON-ness', () => {
  it(`accepts ${JSON_MAX_DEPTH} levels of nesting and rejects ${JSON_MAX_DEPTH + 1}`, () => {
    expect(jsonDepth(nestedObjects(JSON_MAX_DEPTH))).toBe(JSON_MAX_DEPTH);
    expect(validateAnswer(EXTERNAL, nestedObjects(JSON_MAX_DEPTH))).toBeTruthy();
    expectBad(() => validateAnswer(EXTERNAL, nestedObjects(JSON_MAX_DEPTH + 1)), 'answer');
    const arrays = { list: nestedArrays(JSON_MAX_DEPTH - 1) };
    expect(jsonDepth(arrays)).toBe(JSON_MAX_DEPTH);
    expect(validateAnswer(EXTERNAL, arrays)).toBe(arrays);
    expectBad(() => validateAnswer(EXTERNAL, { list: nestedArrays(JSON_MAX_DEPTH) }), 'answer');
  });

  it('rejects very deep values without blowing the stack, whatever the format', () => {
    const deep = nestedArrays(200_000);
    for (const q of [TEXT, CONFIRM, SELECT, FORM, EXTERNAL])
      expectBad(() => validateAnswer(q, deep), 'answer');
    expectBad(() => validateAnswer(FORM, { email: 'a@example.com', a: nestedObjects(100_000) }), 'answer');
  });

  it('rejects values that are not JSON', () => {
    for (const a of [
      { x: undefined },
      { x: () => 1 },
      { x: 1n },
      { when: new Date(0) },
      new Map([['a', 1]]),
    ]) {
      expectBad(() => validateAnswer(EXTERNAL, a), 'answer');
    }
    expectBad(() => validateAnswer(TEXT, undefined), 'answer');
    // A number that is not finite is named at its path: RFC 8785 has no form for it.
    expectBad(() => validateAnswer(EXTERNAL, { x: Number.NaN }), 'answer.x');
    expectBad(() => validateAnswer(EXTERNAL, { x: [1, Number.POSITIVE_INFINITY] }), 'answer.x[1]');
  });

  it('jsonDepth counts containers only', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth([])).toBe(1);
    expect(jsonDepth({ a: [{ b: 1 }] })).toBe(3);
  });
});

describe('validateAnswer: never throws anything but BAD_USER_INPUT', () => {
  const check = (q: AnswerTarget, a: unknown) => {
    try {
      validateAnswer(q, a);
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('BAD_USER_INPUT');
      expect((err as DomainError).field?.startsWith('answer')).toBe(true);
    }
  };
  const question = fc.constantFrom(TEXT, CONFIRM, SELECT, FORM, EXTERNAL, EXTERNAL_SCHEMA);

  it('holds for arbitrary values', () => {
    fc.assert(fc.property(question, fc.anything(), check));
    fc.assert(fc.property(question, fc.jsonValue(), check));
  });

  it('holds for form-shaped objects', () => {
    const form = fc.record(
      {
        email: fc.oneof(fc.emailAddress(), fc.jsonValue()),
        count: fc.jsonValue(),
        a: fc.jsonValue(),
        items: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(form, (a) => check(FORM, a)));
  });
});

describe('validateAnswer: only own properties meet `required`', () => {
  const inherited: AnswerTarget = {
    format: 'FORM',
    options: null,
    // Parsed, not written as a literal: in a literal `__proto__:` would set the prototype.
    schema: JSON.parse(
      '{"type": "object", "required": ["__proto__", "constructor", "toString"], "properties": {"__proto__": {"type": "string"}, "constructor": {"type": "string"}}}',
    ),
  };

  it('refuses {} (every object inherits __proto__, constructor and toString)', () => {
    expectBad(() => validateAnswer(inherited, {}), 'answer.__proto__');
    expectBad(() => validateAnswer({ ...inherited, format: 'EXTERNAL' }, {}), 'answer.__proto__');
  });

  it('accepts the properties when they are really given (as JSON.parse makes them)', () => {
    const given = JSON.parse('{"__proto__": "a", "constructor": "b", "toString": "c"}');
    expect(validateAnswer(inherited, given)).toBe(given);
    expectBad(
      () => validateAnswer(inherited, JSON.parse('{"__proto__": "a", "toString": "c"}')),
      'answer.constructor',
    );
  });

  it('the callback door: an empty JSON body and the form page are held to the same rule', () => {
    const external = { ...inherited, format: 'EXTERNAL' as const };
    const empty = callbackPayload(external, Buffer.from('{}'), {});
    expectBad(() => validateAnswer(external, empty), 'answer.__proto__');
    const query = callbackPayload(external, Buffer.alloc(0), {});
    expectBad(() => validateAnswer(external, query), 'answer.__proto__');
    // The form page posts fields form-encoded; `__proto__` must arrive as a field, not vanish.
    const form = (body: string) =>
      callbackPayload(inherited, Buffer.from(body), {}, 'application/x-www-form-urlencoded');
    expectBad(() => validateAnswer(inherited, form('toString=c')), 'answer.__proto__');
    const full = form('__proto__=a&constructor=b&toString=c');
    expect(Object.hasOwn(full as object, '__proto__')).toBe(true);
    expect(validateAnswer(inherited, full)).toBe(full);
    expect(Object.getPrototypeOf(full)).toBe(Object.prototype);
  });
});
