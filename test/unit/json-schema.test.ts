import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import {
  type CompiledSchema,
  compileJsonSchema,
  isJsonValue,
  jsonDepth,
  validateAgainst,
} from '../../src/domain/json-schema.ts';
import { JSON_MAX_DEPTH, SCHEMA_MAX_BYTES } from '../../src/domain/limits.ts';
import { PATTERN_PROGRAM_MAX, PATTERN_WORK_MAX } from '../../src/domain/linear-regexp.ts';
import { caught, expectBad } from '../support/domain-errors.ts';

const F = 'input.schema';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

function passes(compiled: CompiledSchema, value: unknown): boolean {
  try {
    validateAgainst(compiled, value, 'answer');
    return true;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return false;
  }
}

/** `{"description":"…"}` serialized to exactly `bytes` UTF-8 bytes, using `unit` (1 or 2 bytes). */
function schemaOfBytes(bytes: number, unit: 'a' | 'é'): Record<string, unknown> {
  const overhead = JSON.stringify({ description: '' }).length;
  const per = unit === 'a' ? 1 : 2;
  const schema = { description: unit.repeat((bytes - overhead) / per) };
  expect(new TextEncoder().encode(JSON.stringify(schema)).length).toBe(bytes);
  return schema;
}

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) schema = { not: schema };
  return schema;
}

describe('compileJsonSchema', () => {
  it('compiles a draft 2020-12 schema by default', () => {
    const c = compileJsonSchema({ type: 'object', properties: { n: { type: 'integer' } } }, F);
    expect(c.draft).toBe('2020-12');
    expect(passes(c, { n: 1 })).toBe(true);
    expect(passes(c, { n: 'x' })).toBe(false);
  });

  it('supports prefixItems under 2020-12', () => {
    const c = compileJsonSchema({ type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] }, F);
    expect(passes(c, [1, 'a'])).toBe(true);
    expectBad(() => validateAgainst(c, ['a', 1], 'answer'), 'answer[0]');
  });

  it('refuses the draft-07 tuple form of items under 2020-12', () => {
    expectBad(() => compileJsonSchema({ type: 'array', items: [{ type: 'number' }] }, F), F);
  });

  it('uses draft-07 when $schema names it, with or without #', () => {
    for (const $schema of [DRAFT_07, 'http://json-schema.org/draft-07/schema']) {
      const c = compileJsonSchema(
        { $schema, type: 'array', items: [{ type: 'number' }, { type: 'string' }] },
        F,
      );
      expect(c.draft).toBe('draft-07');
      expect(passes(c, [1, 'a'])).toBe(true);
      expectBad(() => validateAgainst(c, [1, 2], 'answer'), 'answer[1]');
    }
  });

  it('accepts an explicit 2020-12 $schema', () => {
    const c = compileJsonSchema(
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
      F,
    );
    expect(c.draft).toBe('2020-12');
  });

  it('refuses any other $schema', () => {
    for (const $schema of [
      'https://json-schema.org/draft/2019-09/schema',
      'http://json-schema.org/draft-04/schema#',
      'http://json-schema.org/draft-06/schema#',
      'https://json-schema.org/draft-07/schema#',
      'https://example.com/my-meta',
      '',
      5,
      null,
    ]) {
      expectBad(() => compileJsonSchema({ $schema, type: 'object' }, F), F);
    }
  });

  it('refuses values that are not JSON objects', () => {
    for (const bad of [null, undefined, [], [{}], 'object', 1, true, new Date(0), new Map()]) {
      expectBad(() => compileJsonSchema(bad, F), F);
    }
  });

  it('refuses non-JSON content', () => {
    expectBad(() => compileJsonSchema({ type: 'object', minProperties: Number.NaN }, F), F);
    expectBad(() => compileJsonSchema({ type: 'object', x: () => 1 }, F), F);
    expectBad(() => compileJsonSchema({ type: 'object', x: 10n }, F), F);
  });

  it('refuses schemas that fail the meta-schema', () => {
    expectBad(() => compileJsonSchema({ type: 'objectx' }, F), F);
    expectBad(() => compileJsonSchema({ type: 'object', required: 'email' }, F), F);
    expectBad(() => compileJsonSchema({ minLength: -1 }, F), F);
    expectBad(() => compileJsonSchema({ $schema: DRAFT_07, type: 'integer', minimum: 'zero' }, F), F);
  });

  it('refuses schemas that do not compile', () => {
    expectBad(() => compileJsonSchema({ type: 'string', pattern: '(' }, F), F);
    expectBad(() => compileJsonSchema({ $ref: '#/$defs/missing' }, F), F);
  });

  it('never resolves remote $refs', () => {
    expectBad(() => compileJsonSchema({ $ref: 'https://example.com/schema.json' }, F), F);
    expectBad(() => compileJsonSchema({ $schema: DRAFT_07, $ref: 'http://example.com/s.json#/a' }, F), F);
  });

  it('resolves local $refs', () => {
    const c = compileJsonSchema(
      { type: 'object', properties: { n: { $ref: '#/$defs/n' } }, $defs: { n: { type: 'integer' } } },
      F,
    );
    expect(passes(c, { n: 1 })).toBe(true);
    expectBad(() => validateAgainst(c, { n: 'x' }, 'answer'), 'answer.n');
  });

  it('enforces formats (ajv-formats) under both drafts', () => {
    for (const extra of [{}, { $schema: DRAFT_07 }]) {
      const c = compileJsonSchema({ ...extra, type: 'object', properties: { e: { format: 'email' } } }, F);
      expect(passes(c, { e: 'a@example.com' })).toBe(true);
      expectBad(() => validateAgainst(c, { e: 'nope' }, 'answer'), 'answer.e');
    }
  });

  it(`caps the serialized schema at ${SCHEMA_MAX_BYTES} bytes (at the cap and one past)`, () => {
    expect(compileJsonSchema(schemaOfBytes(SCHEMA_MAX_BYTES, 'a'), F).serialized).toHaveLength(
      SCHEMA_MAX_BYTES,
    );
    expectBad(() => compileJsonSchema(schemaOfBytes(SCHEMA_MAX_BYTES + 1, 'a'), F), F);
  });

  it('counts the cap in UTF-8 bytes, not characters', () => {
    expect(compileJsonSchema(schemaOfBytes(SCHEMA_MAX_BYTES, 'é'), F).draft).toBe('2020-12');
    expectBad(() => compileJsonSchema(schemaOfBytes(SCHEMA_MAX_BYTES + 2, 'é'), F), F);
  });

  it(`refuses schemas nested deeper than ${JSON_MAX_DEPTH} levels`, () => {
    expect(compileJsonSchema(nested(JSON_MAX_DEPTH), F).draft).toBe('2020-12');
    expectBad(() => compileJsonSchema(nested(JSON_MAX_DEPTH + 1), F), F);
    expectBad(() => compileJsonSchema(nested(5000), F), F);
  });

  it('reports errors at the given field', () => {
    expectBad(() => compileJsonSchema({ type: 'nope' }, 'schema'), 'schema');
  });

  it('compiles the same schema once (cache by serialized JSON)', () => {
    const schema = { type: 'object', properties: { cached: { type: 'string' } } };
    const a = compileJsonSchema(schema, F);
    const b = compileJsonSchema(structuredClone(schema), F);
    expect(b).toBe(a);
    expect(b.validate).toBe(a.validate);
  });

  it('evicts the oldest entry when the cache is full', () => {
    const first = compileJsonSchema({ type: 'object', title: 'evict-me' }, F);
    for (let i = 0; i < 500; i++) compileJsonSchema({ type: 'object', title: `filler-${i}` }, F);
    expect(compileJsonSchema({ type: 'object', title: 'evict-me' }, F)).not.toBe(first);
  });

  it('keeps schemas with the same $id apart', () => {
    const a = compileJsonSchema({ $id: 'https://example.com/same', type: 'string' }, F);
    const b = compileJsonSchema({ $id: 'https://example.com/same', type: 'integer' }, F);
    expect(passes(a, 'x')).toBe(true);
    expect(passes(b, 1)).toBe(true);
    expect(passes(b, 'x')).toBe(false);
  });

  it('does not share the cached copy with the caller', () => {
    const schema = { type: 'object', title: 'detached' };
    const c = compileJsonSchema(schema, F);
    schema.title = 'changed';
    expect(c.schema.title).toBe('detached');
  });
});

describe('validateAgainst', () => {
  const c = compileJsonSchema(
    {
      type: 'object',
      required: ['email'],
      additionalProperties: false,
      properties: {
        email: { type: 'string' },
        count: { type: 'integer' },
        a: { type: 'object', properties: { b: { type: 'string' } } },
        items: { type: 'array', items: { type: 'number' } },
        rows: { type: 'array', items: { type: 'object', required: ['id'] } },
        'a b': { type: 'string' },
        'a/b~c': { type: 'string' },
        '0': { type: 'string' },
      },
    },
    F,
  );

  it('accepts a valid value', () => {
    expect(() => validateAgainst(c, { email: 'x', count: 2, items: [1, 2] }, 'answer')).not.toThrow();
  });

  it('names the failing path under the root', () => {
    expectBad(() => validateAgainst(c, { email: 'x', count: 'many' }, 'answer'), 'answer.count');
    expectBad(() => validateAgainst(c, { email: 'x', a: { b: 2 } }, 'answer'), 'answer.a.b');
    expectBad(() => validateAgainst(c, {}, 'answer'), 'answer.email');
    expectBad(() => validateAgainst(c, { email: 'x', items: [1, 'two'] }, 'answer'), 'answer.items[1]');
    expectBad(() => validateAgainst(c, { email: 'x', rows: [{ id: 1 }, {}] }, 'answer'), 'answer.rows[1].id');
    expectBad(() => validateAgainst(c, { email: 'x', extra: 1 }, 'answer'), 'answer.extra');
    expectBad(() => validateAgainst(c, 'not an object', 'answer'), 'answer');
    expectBad(() => validateAgainst(c, { email: 'x', count: 1.5 }, 'payload'), 'payload.count');
  });

  it('quotes keys that are not plain identifiers', () => {
    expectBad(() => validateAgainst(c, { email: 'x', 'a b': 1 }, 'answer'), 'answer["a b"]');
    expectBad(() => validateAgainst(c, { email: 'x', 'a/b~c': 1 }, 'answer'), 'answer["a/b~c"]');
    expectBad(() => validateAgainst(c, { email: 'x', '0': 1 }, 'answer'), 'answer["0"]');
  });

  it('says what is wrong without echoing the value', () => {
    const err = caught(() => validateAgainst(c, { email: 'secret-value', count: 'secret-value' }, 'answer'));
    expect(err.message).toContain('answer.count');
    expect(err.message).not.toContain('secret-value');
    expect(caught(() => validateAgainst(c, {}, 'answer')).message).toBe('answer.email is required');
  });
});

describe('a failed format is named in words, before any regular expression', () => {
  const c = compileJsonSchema(
    {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        work: { type: 'string', format: 'email', pattern: '@example\\.com$' },
        day: { $ref: '#/$defs/day' },
        odd: { type: 'string', format: 'no-such-format' },
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
      },
      $defs: { day: { type: 'string', format: 'date', pattern: '^2' } },
    },
    F,
  );

  it('says "must be an email address", not Ajv\'s "must match format"', () => {
    expect(caught(() => validateAgainst(c, { email: 'nope' }, 'answer')).message).toBe(
      'answer.email must be an email address',
    );
  });

  it('names the format when both the format and the pattern fail', () => {
    expect(caught(() => validateAgainst(c, { work: 'nope' }, 'answer')).message).toBe(
      'answer.work must be an email address',
    );
    expect(caught(() => validateAgainst(c, { day: 'tomorrow' }, 'answer')).message).toBe(
      'answer.day must be a date (YYYY-MM-DD)',
    );
  });

  it('names the pattern when the format holds and only the pattern fails', () => {
    const m = caught(() => validateAgainst(c, { work: 'ada@elsewhere.org' }, 'answer')).message;
    expect(m).toMatch(/^answer\.work must match pattern/);
    expect(caught(() => validateAgainst(c, { code: 'ab' }, 'answer')).message).toMatch(/must match pattern/);
  });

  it('accepts values that meet both', () => {
    expect(() => validateAgainst(c, { work: 'ada@example.com', day: '2026-12-06' }, 'answer')).not.toThrow();
  });
});

describe('jsonDepth and isJsonValue', () => {
  it('measures nesting', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth([[1], { a: { b: [] } }])).toBe(4);
  });

  it('is iterative and stops early when asked', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonDepth(deep)).toBe(100_000);
    expect(jsonDepth(deep, 64)).toBe(65);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonDepth(cyclic, 64)).toBe(65);
  });

  it('recognizes plain JSON', () => {
    expect(isJsonValue({ a: [1, 'x', null, true, { b: -0.5 }] })).toBe(true);
    for (const bad of [
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1n,
      () => 1,
      new Date(0),
      [undefined],
    ]) {
      expect(isJsonValue(bad)).toBe(false);
    }
  });
});

describe('json-schema: never throws anything but BAD_USER_INPUT', () => {
  const expectDomain = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('BAD_USER_INPUT');
    }
  };

  it('holds for arbitrary schemas', () => {
    fc.assert(fc.property(fc.anything(), (s) => expectDomain(() => compileJsonSchema(s, F))));
    fc.assert(fc.property(fc.jsonValue(), (s) => expectDomain(() => compileJsonSchema(s, F))));
    const keyword = fc.constantFrom(
      'type',
      'properties',
      'items',
      'prefixItems',
      '$ref',
      '$schema',
      'required',
      'pattern',
      'format',
      '$id',
      'enum',
      'const',
    );
    const schemaLike = fc.dictionary(keyword, fc.jsonValue({ maxDepth: 3 }));
    fc.assert(fc.property(schemaLike, (s) => expectDomain(() => compileJsonSchema(s, F))));
  });

  it('holds for arbitrary values against a schema', () => {
    const c = compileJsonSchema(
      { type: 'object', required: ['a'], properties: { a: { type: 'array', items: { type: 'string' } } } },
      F,
    );
    fc.assert(fc.property(fc.anything(), (v) => expectDomain(() => validateAgainst(c, v, 'answer'))));
  });
});

describe('patterns run in linear time', () => {
  it('a catastrophic-backtracking pattern answers at once instead of stalling', () => {
    const compiled = compileJsonSchema(
      { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } },
      'input.schema',
    );
    // A backtracking engine needs ~2^40 steps for this; RE2 needs ~40.
    expect(() => validateAgainst(compiled, { v: `${'a'.repeat(40)}!` }, 'answer')).toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'answer.v' }),
    );
    expect(() => validateAgainst(compiled, { v: 'aaaa' }, 'answer')).not.toThrow();
  });

  it('refuses a pattern RE2 cannot run (a backreference) when the schema is compiled', () => {
    expect(() =>
      compileJsonSchema(
        { type: 'object', properties: { v: { type: 'string', pattern: '(a)\\1' } } },
        'input.schema',
      ),
    ).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'input.schema' }));
  });

  it('keeps ordinary patterns and the i flag working', () => {
    const c = compileJsonSchema(
      { type: 'object', properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } } },
      'input.schema',
    );
    expect(() => validateAgainst(c, { zip: '12345' }, 'answer')).not.toThrow();
    expect(() => validateAgainst(c, { zip: '1234x' }, 'answer')).toThrow(
      expect.objectContaining({ field: 'answer.zip' }),
    );
  });
});

describe('pattern cost is bounded (a schema cannot freeze the server through the callback door)', () => {
  const withPattern = (pattern: string) => ({
    type: 'object',
    properties: { v: { type: 'string', pattern } },
    patternProperties: {},
  });

  it('refuses at ask time a pattern whose compiled program is too large', () => {
    // Counted repetition multiplies the program: this one is ~10,000 instructions.
    const err = caught(() => compileJsonSchema(withPattern('(.*){1,999}(.*){1,999}'), F));
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.field).toBe(F);
    expect(err.message).toMatch(/too complex/);
    expectBad(() => compileJsonSchema({ type: 'object', patternProperties: { '(.*){1,999}': {} } }, F), F);
  });

  it(`accepts a program of exactly ${PATTERN_PROGRAM_MAX} instructions and refuses one more`, () => {
    // Sizes as RE2 counts them: `(.*){1,199}` is 996, each literal adds one.
    expect(PATTERN_PROGRAM_MAX).toBe(1000);
    expect(() => compileJsonSchema(withPattern('(.*){1,199}abcd'), F)).not.toThrow();
    expectBad(() => compileJsonSchema(withPattern('(.*){1,199}abcde'), F), F);
  });

  it('bounds the pattern work of one answer: at the budget it validates, one character past it is refused', () => {
    // `^[a-z]*$` is 6 instructions; a test costs (length + 1) × 6.
    const c = compileJsonSchema(withPattern('^[a-z]*$'), F);
    const atBudget = Math.floor(PATTERN_WORK_MAX / 6) - 1;
    expect(passes(c, { v: 'a'.repeat(atBudget) })).toBe(true);
    const err = caught(() => validateAgainst(c, { v: 'a'.repeat(atBudget + 1) }, 'answer'));
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.field).toBe('answer');
    expect(err.message).toMatch(/patterns are too long/);
  });

  it('shares the budget across every string of the answer and resets it for the next one', () => {
    const c = compileJsonSchema(
      {
        type: 'object',
        properties: { vs: { type: 'array', items: { type: 'string', pattern: '^[a-z]*$' } } },
      },
      F,
    );
    const half = 'a'.repeat(Math.floor(PATTERN_WORK_MAX / 6 / 2));
    expect(passes(c, { vs: [half] })).toBe(true);
    expect(passes(c, { vs: [half, half, half] })).toBe(false);
    expect(passes(c, { vs: [half] })).toBe(true);
  });

  it('the worst answer for the largest pattern stays within the budget (a 64 KiB string is refused unmatched)', () => {
    const c = compileJsonSchema(withPattern('(.*){1,199}abcd'), F);
    const err = caught(() => validateAgainst(c, { v: 'x'.repeat(65_536) }, 'answer'));
    expect(err.message).toMatch(/patterns are too long/);
    expect(passes(c, { v: `${'x'.repeat(400)}abcd` })).toBe(true);
  });
});

describe('uniqueItems is linear and keeps JSON Schema equality', () => {
  const c = compileJsonSchema(
    { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } },
    F,
  );

  it('finds duplicates by value, whatever the key order', () => {
    const err = caught(() => validateAgainst(c, { xs: [{ a: 1, b: [2] }, 3, { b: [2], a: 1 }] }, 'answer'));
    expect(err.field).toBe('answer.xs');
    expect(err.message).toMatch(/duplicate items/);
    expect(passes(c, { xs: [1, 1] })).toBe(false);
    expect(passes(c, { xs: [null, null] })).toBe(false);
  });

  it('keeps values of different types or shapes apart', () => {
    expect(passes(c, { xs: [1, '1', true, 'true', null, 'null', [1], [1, 1], { a: 1 }, { a: '1' }] })).toBe(
      true,
    );
    expect(passes(c, { xs: [] })).toBe(true);
  });

  it('ignores uniqueItems: false', () => {
    const loose = compileJsonSchema({ type: 'object', properties: { xs: { uniqueItems: false } } }, F);
    expect(passes(loose, { xs: [1, 1] })).toBe(true);
  });

  it('checks 30,000 object items (pairwise comparison took seconds) and still finds the last duplicate', () => {
    const xs = Array.from({ length: 30_000 }, (_, i) => ({ a: [1, 2, { b: 'p' }], i }));
    expect(passes(c, { xs })).toBe(true);
    expect(passes(c, { xs: [...xs, { i: 29_999, a: [1, 2, { b: 'p' }] }] })).toBe(false);
  });
});
