// Errors that refuse a choice list the valid ones (a refused option, channel, webhook endpoint,
// verifier, field or schema enum), cut short for long lists; and text values (query
// parameters, form fields) coerced by the question's schema before it judges them.
import { describe, expect, it } from 'vitest';
import { validateAnswer } from '../../src/domain/answer.ts';
import { type AskContext, validateAskInput } from '../../src/domain/ask-input.ts';
import { callbackPayload } from '../../src/domain/callback-payload.ts';
import { OPTIONS_MAX } from '../../src/domain/limits.ts';
import { listChoices } from '../../src/domain/values.ts';
import { checkShape } from '../../src/verifiers/common.ts';
import { caught } from '../support/domain-errors.ts';

const ctx: AskContext = {
  verifiers: new Set(['hmac-sha256', 'github']),
  channels: new Set(['ops-slack', 'sms']),
  webhooks: new Set(['runs']),
  prepared: false,
};

/** The refusal's message, after checking it is BAD_USER_INPUT at `field`. */
function refusal(fn: () => unknown, field: string): string {
  const err = caught(fn);
  expect([err.code, err.field]).toEqual(['BAD_USER_INPUT', field]);
  return err.message;
}

describe('listChoices', () => {
  it('quotes each choice as JSON, so "1" and 1 differ', () => {
    expect(listChoices(['staging', 'production'])).toBe('"staging", "production"');
    expect(listChoices(['1', 1, true, null])).toBe('"1", 1, true, null');
  });

  it('shows ten choices and counts the rest: ten are all shown, eleven say one more', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `o${i}`);
    expect(listChoices(ten)).toBe(ten.map((o) => `"${o}"`).join(', '));
    expect(listChoices([...ten, 'o10'])).toBe(`${ten.map((o) => `"${o}"`).join(', ')}, … (1 more)`);
  });

  it('cuts each choice to 40 code points, and says `none` when there is nothing', () => {
    expect(listChoices(['x'.repeat(40)])).toBe(`"${'x'.repeat(40)}"`);
    expect(listChoices(['x'.repeat(41)])).toBe(`"${'x'.repeat(40)}…"`);
    expect(listChoices([{ a: 'y'.repeat(100) }])).toHaveLength(41);
    expect(listChoices([])).toBe('none');
    expect(listChoices([], 'nothing configured')).toBe('nothing configured');
  });
});

describe('refusals list the valid choices', () => {
  it('a SELECT answer that is not an option lists the options', () => {
    const q = { format: 'SELECT' as const, options: ['staging', 'production'], schema: null };
    expect(refusal(() => validateAnswer(q, 'prod'), 'answer')).toBe(
      'answer must be one of the options: "staging", "production"',
    );
  });

  it('a hundred long options make a short message', () => {
    const options = Array.from({ length: OPTIONS_MAX }, (_, i) => `${i} ${'long '.repeat(100)}`);
    const message = refusal(() => validateAnswer({ format: 'SELECT', options, schema: null }, 'x'), 'answer');
    expect(message).toMatch(/^answer must be one of the options: "0 long long .+…", /);
    expect(message).toMatch(/, … \(90 more\)$/);
    expect(message.length).toBeLessThan(600);
  });

  it('an unknown channel, webhook endpoint or verifier lists the configured ones', () => {
    expect(refusal(() => validateAskInput({ text: 'x', channel: 'fax' }, ctx), 'input.channel')).toBe(
      'unknown channel (configured: "ops-slack", "sms")',
    );
    expect(refusal(() => validateAskInput({ text: 'x', notify: 'other' }, ctx), 'input.notify')).toBe(
      'unknown webhook endpoint (configured: "runs")',
    );
    const ext = { text: 'x', format: 'EXTERNAL', link: 'https://e.example/?cb={callback_url}' };
    expect(
      refusal(() => validateAskInput({ ...ext, verifier: { name: 'md5' } }, ctx), 'input.verifier.name'),
    ).toBe('unknown verifier (allowed: "hmac-sha256", "github")');
  });

  it('with none configured, the message says the manifest names none', () => {
    const bare: AskContext = { verifiers: new Set(), channels: new Set(), prepared: false };
    expect(refusal(() => validateAskInput({ text: 'x', channel: 'fax' }, bare), 'input.channel')).toBe(
      'unknown channel (the manifest names none)',
    );
    expect(refusal(() => validateAskInput({ text: 'x', notify: 'runs' }, bare), 'input.notify')).toBe(
      'unknown webhook endpoint (the manifest names none)',
    );
  });

  it('an unknown field of the input, of a media item or of a verifier config lists the known ones', () => {
    const input = refusal(() => validateAskInput({ text: 'x', txet: 'y' }, ctx), 'input.txet');
    expect(input).toMatch(
      /^unknown field \(expected: "text", "format", "options", .*"notify", "action", "quorum", "escalation", "escalationPolicy"\)$/,
    );
    const media = refusal(
      () =>
        validateAskInput({ text: 'x', media: [{ kind: 'LINK', url: 'https://a.example', alt: 'a' }] }, ctx),
      'input.media[0].alt',
    );
    expect(media).toBe('unknown field (expected: "kind", "url", "caption")');
    expect(
      refusal(() => checkShape({ secret: 'x' }, ['secretEnv', 'header']), 'input.verifier.config.secret'),
    ).toBe('unknown verifier config key (expected: "secretEnv", "header")');
  });

  it('a schema enum or const refusal lists what the schema allows', () => {
    const q = {
      format: 'FORM' as const,
      options: null,
      schema: {
        type: 'object',
        properties: { env: { enum: ['staging', 'production', 3] }, ok: { const: true } },
      },
    };
    expect(refusal(() => validateAnswer(q, { env: 'dev' }), 'answer.env')).toBe(
      'answer.env must be one of: "staging", "production", 3',
    );
    expect(refusal(() => validateAnswer(q, { ok: false }), 'answer.ok')).toBe('answer.ok must be true');
  });
});

describe('text values coerced by the schema', () => {
  const external = {
    format: 'EXTERNAL' as const,
    schema: {
      type: 'object',
      properties: {
        signed: { const: true },
        level: { enum: [1, 2, '3'] },
        pick: { enum: ['true', false] },
        count: { type: 'integer' },
        flag: { type: ['boolean', 'null'] },
        ids: { type: 'array', items: { type: 'number' } },
      },
    },
  };
  const fromQuery = (query: Record<string, string | string[]>) =>
    callbackPayload(external, Buffer.alloc(0), query);

  it('booleans and numbers by type, const or enum; the text itself when the enum holds it', () => {
    expect(
      fromQuery({ signed: 'true', level: '2', count: '-4', flag: 'false', ids: ['1.5', '2'], other: '5' }),
    ).toEqual({ signed: true, level: 2, count: -4, flag: false, ids: [1.5, 2], other: '5' });
    expect(fromQuery({ level: '3', pick: 'true' })).toEqual({ level: '3', pick: 'true' });
    expect(fromQuery({ pick: 'false' })).toEqual({ pick: false });
  });

  it('text that spells no value of the schema stays text, for the schema to refuse', () => {
    expect(fromQuery({ signed: 'yes', count: '4.', flag: 'True', level: '02' })).toEqual({
      signed: 'yes',
      count: '4.',
      flag: 'True',
      level: '02',
    });
  });

  it('without a schema the values stay as they came, and __proto__ is an ordinary field', () => {
    const plain = { format: 'EXTERNAL' as const, schema: null };
    const got = callbackPayload(plain, Buffer.alloc(0), JSON.parse('{"__proto__":"x","n":"1"}')) as object;
    expect(Object.keys(got)).toEqual(['__proto__', 'n']);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
  });

  it('the callback form page: an enum with no type takes the number its option spells', () => {
    const form = {
      format: 'FORM' as const,
      schema: { type: 'object', properties: { size: { enum: [1, 2] }, ok: { const: false } } },
    };
    const body = Buffer.from('size=2&ok=false');
    expect(callbackPayload(form, body, {}, 'application/x-www-form-urlencoded')).toEqual({
      size: 2,
      ok: false,
    });
  });
});
