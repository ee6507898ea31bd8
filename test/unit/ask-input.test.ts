import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AskContext, resolveLink, validateAskInput } from '../../src/domain/ask-input.ts';
import { DomainError } from '../../src/domain/errors.ts';
import {
  LABEL_MAX_CHARS,
  LINK_MAX_CHARS,
  OPTION_MAX_CHARS,
  OPTIONS_MAX,
  SCHEMA_MAX_BYTES,
  TEXT_MAX_CHARS,
  TIMEOUT_MAX_SECONDS,
  TIMEOUT_MIN_SECONDS,
} from '../../src/domain/limits.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import { expectBad } from '../support/domain-errors.ts';

const ctx: AskContext = {
  verifiers: new Set(['hmac-sha256', 'github']),
  channels: new Set(['slack']),
  prepared: false,
};
const prepared: AskContext = { ...ctx, prepared: true };
const ask = (input: Record<string, unknown>, c: AskContext = ctx) => validateAskInput(input, c);
const bad = (input: unknown, field: string, c: AskContext = ctx) =>
  expectBad(() => validateAskInput(input, c), field);

const LINK = 'https://forms.example.com/f?cb={callback_url}';
const external = (extra: Record<string, unknown> = {}) => ({
  text: 'Pay?',
  format: 'EXTERNAL',
  link: LINK,
  ...extra,
});
const formSchema = { type: 'object', properties: { n: { type: 'integer' } } };
const XSS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(document.cookie)>',
  "javascript:alert('x')",
  '{{constructor.constructor("alert(1)")()}}',
  '\u0024{7*7} <!-- --> ]]> \u0000',
];

describe('validateAskInput: the input object', () => {
  it('accepts a minimal question and fills defaults', () => {
    expect(ask({ text: 'Ship it?' })).toEqual({
      action: null,
      quorum: null,
      text: 'Ship it?',
      format: 'TEXT',
      options: null,
      schema: null,
      link: null,
      verifier: null,
      channel: null,
      recipient: null,
      audience: null,
      groupId: null,
      media: null,
      timeoutSeconds: null,
      sensitive: false,
      idempotencyKey: null,
      metadata: null,
      notify: null,
      escalation: null,
    });
  });

  it('treats null as absent for every optional field', () => {
    const nulls = {
      format: null,
      options: null,
      schema: null,
      link: null,
      verifier: null,
      channel: null,
      recipient: null,
      audience: null,
      groupId: null,
      media: null,
      timeoutSeconds: null,
      sensitive: null,
      idempotencyKey: null,
      metadata: null,
      notify: null,
      escalation: null,
      escalationPolicy: null,
    };
    expect(ask({ text: 'hi', ...nulls })).toEqual(ask({ text: 'hi' }));
  });

  it('keeps every field of a full question', () => {
    const v = ask({
      text: 'Approve?',
      format: 'CONFIRM',
      channel: 'slack',
      recipient: '@ops',
      audience: 'alice',
      groupId: 'deploy-42',
      media: [{ kind: 'LINK', url: 'https://example.com/pr/1', caption: 'PR' }],
      timeoutSeconds: 600,
      sensitive: true,
      idempotencyKey: 'k-1',
    });
    expect(v).toMatchObject({
      format: 'CONFIRM',
      channel: 'slack',
      recipient: '@ops',
      audience: 'alice',
      groupId: 'deploy-42',
      media: [{ kind: 'LINK', url: 'https://example.com/pr/1', caption: 'PR' }],
      timeoutSeconds: 600,
      sensitive: true,
      idempotencyKey: 'k-1',
    });
  });

  it('rejects an input that is not an object', () => {
    for (const raw of [null, undefined, 'text', 42, [], [{ text: 'hi' }], new Date(0)]) bad(raw, 'input');
  });

  it('rejects unknown keys, naming them', () => {
    bad({ text: 'hi', bogus: 1 }, 'input.bogus');
    bad({ text: 'hi', Text: 'x' }, 'input.Text');
    bad({ text: 'hi', constructor: {} }, 'input.constructor');
    bad(JSON.parse('{"text":"hi","__proto__":{"admin":true}}'), 'input.__proto__');
    bad({ bogus: 1 }, 'input.bogus');
  });

  it('accepts only plain objects (null prototype included)', () => {
    bad(Object.create({ text: 'inherited' }), 'input');
    expect(ask(Object.assign(Object.create(null), { text: 'hi' })).text).toBe('hi');
  });
});

describe('validateAskInput: text', () => {
  it('is required and must be a string', () => {
    bad({}, 'input.text');
    bad({ text: null }, 'input.text');
    bad({ text: 5 }, 'input.text');
    bad({ text: ['a'] }, 'input.text');
  });

  it('must not be blank', () => {
    for (const text of ['', ' ', '\n\t ', '\u200B\u200B', '\u3000']) bad({ text }, 'input.text');
  });

  it(`is at most ${TEXT_MAX_CHARS} characters (at the cap and one past)`, () => {
    expect(ask({ text: 'a'.repeat(TEXT_MAX_CHARS) }).text).toHaveLength(TEXT_MAX_CHARS);
    bad({ text: 'a'.repeat(TEXT_MAX_CHARS + 1) }, 'input.text');
  });

  it('counts code points: emoji text of exactly the cap is accepted', () => {
    const text = '😀'.repeat(TEXT_MAX_CHARS);
    expect(text.length).toBe(TEXT_MAX_CHARS * 2);
    expect(ask({ text }).text).toBe(text);
    bad({ text: `${text}😀` }, 'input.text');
    bad({ text: `${text}a` }, 'input.text');
  });

  it('keeps XSS-looking text verbatim (it is valid text)', () => {
    for (const text of XSS) expect(ask({ text }).text).toBe(text);
  });
});

describe('validateAskInput: format', () => {
  it('defaults to TEXT and accepts every format', () => {
    expect(ask({ text: 'x' }).format).toBe('TEXT');
    expect(ask({ text: 'x', format: 'CONFIRM' }).format).toBe('CONFIRM');
    expect(ask({ text: 'x', format: 'SELECT', options: ['a'] }).format).toBe('SELECT');
    expect(ask({ text: 'x', format: 'FORM', schema: formSchema }).format).toBe('FORM');
    expect(ask(external()).format).toBe('EXTERNAL');
  });

  it('rejects unknown formats', () => {
    for (const format of ['text', 'BOOLEAN', '', 1, true]) bad({ text: 'x', format }, 'input.format');
  });
});

describe('validateAskInput: options', () => {
  const select = (options: unknown) => ({ text: 'Pick', format: 'SELECT', options });

  it('are required for SELECT', () => {
    bad({ text: 'Pick', format: 'SELECT' }, 'input.options');
    bad(select(null), 'input.options');
  });

  it('are refused on any other format, even empty', () => {
    bad({ text: 'x', options: ['a'] }, 'input.options');
    bad({ text: 'x', format: 'CONFIRM', options: [] }, 'input.options');
    bad({ text: 'x', format: 'FORM', schema: formSchema, options: ['a'] }, 'input.options');
    bad({ ...external(), options: ['a'] }, 'input.options');
  });

  it(`hold 1 to ${OPTIONS_MAX} entries (at the caps and one past)`, () => {
    bad(select([]), 'input.options');
    expect(ask(select(['only'])).options).toEqual(['only']);
    const max = Array.from({ length: OPTIONS_MAX }, (_, i) => `o${i}`);
    expect(ask(select(max)).options).toEqual(max);
    bad(select([...max, 'one more']), 'input.options');
  });

  it('must be strings, naming the entry', () => {
    bad(select('a,b'), 'input.options');
    bad(select(['a', 2, 'c']), 'input.options[1]');
    bad(select(['a', null]), 'input.options[1]');
  });

  it('must not be blank', () => {
    bad(select(['a', '  ']), 'input.options[1]');
  });

  it(`are at most ${OPTION_MAX_CHARS} characters each (at the cap and one past)`, () => {
    const at = '🍕'.repeat(OPTION_MAX_CHARS);
    expect(ask(select(['a', at])).options).toEqual(['a', at]);
    bad(select(['a', 'b', 'c', `${at}x`]), 'input.options[3]');
  });

  it('must not repeat, naming the repeat', () => {
    bad(select(['a', 'b', 'a']), 'input.options[2]');
    expect(ask(select(['a', 'A', 'a '])).options).toEqual(['a', 'A', 'a ']);
  });

  it('keep XSS-looking options verbatim', () => {
    expect(ask(select(XSS)).options).toEqual(XSS);
  });
});

describe('validateAskInput: schema', () => {
  it('is required for FORM', () => {
    bad({ text: 'x', format: 'FORM' }, 'input.schema');
  });

  it('must declare "type": "object" at the root for FORM', () => {
    bad({ text: 'x', format: 'FORM', schema: { properties: { n: { type: 'integer' } } } }, 'input.schema');
    bad({ text: 'x', format: 'FORM', schema: { type: 'string' } }, 'input.schema');
    bad({ text: 'x', format: 'FORM', schema: { type: ['object', 'null'] } }, 'input.schema');
    expect(ask({ text: 'x', format: 'FORM', schema: formSchema }).schema).toEqual(formSchema);
  });

  it('is optional for EXTERNAL (and needs no root type there)', () => {
    expect(ask(external()).schema).toBeNull();
    expect(ask(external({ schema: { required: ['paid'] } })).schema).toEqual({ required: ['paid'] });
  });

  it('is refused on TEXT, CONFIRM and SELECT', () => {
    bad({ text: 'x', schema: formSchema }, 'input.schema');
    bad({ text: 'x', format: 'CONFIRM', schema: formSchema }, 'input.schema');
    bad({ text: 'x', format: 'SELECT', options: ['a'], schema: formSchema }, 'input.schema');
  });

  it('must be a JSON object that compiles', () => {
    for (const schema of [
      [],
      'object',
      1,
      { type: 'object', required: 'n' },
      { $ref: 'https://x.example/s' },
    ]) {
      bad({ text: 'x', format: 'FORM', schema }, 'input.schema');
    }
    bad(external({ schema: { type: 'nope' } }), 'input.schema');
  });

  it('follows draft-07 when $schema names it', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }] } },
    };
    expect(ask({ text: 'x', format: 'FORM', schema }).schema).toEqual(schema);
    bad(
      {
        text: 'x',
        format: 'FORM',
        schema: { ...schema, $schema: 'http://json-schema.org/draft-04/schema#' },
      },
      'input.schema',
    );
  });

  it(`is at most ${SCHEMA_MAX_BYTES} bytes serialized (at the cap and one past)`, () => {
    const overhead = JSON.stringify({ type: 'object', description: '' }).length;
    const at = { type: 'object', description: 'd'.repeat(SCHEMA_MAX_BYTES - overhead) };
    expect(JSON.stringify(at)).toHaveLength(SCHEMA_MAX_BYTES);
    expect(ask({ text: 'x', format: 'FORM', schema: at }).schema).toEqual(at);
    bad({ text: 'x', format: 'FORM', schema: { ...at, description: `${at.description}d` } }, 'input.schema');
  });

  it('returns a private copy', () => {
    const a = ask({ text: 'x', format: 'FORM', schema: formSchema }).schema!;
    a.type = 'mutated';
    expect(ask({ text: 'x', format: 'FORM', schema: formSchema }).schema).toEqual(formSchema);
  });
});

describe('validateAskInput: link', () => {
  it('is required for EXTERNAL', () => {
    bad({ text: 'x', format: 'EXTERNAL' }, 'input.link');
  });

  it('is not required with a channel or a prepared id', () => {
    expect(ask({ text: 'x', format: 'EXTERNAL', channel: 'slack' }).link).toBeNull();
    expect(ask({ text: 'x', format: 'EXTERNAL' }, prepared).link).toBeNull();
  });

  it('is refused on other formats', () => {
    bad({ text: 'x', link: LINK }, 'input.link');
    bad({ text: 'x', format: 'CONFIRM', link: LINK }, 'input.link');
  });

  it('must be a string', () => {
    bad(external({ link: 5 }), 'input.link');
  });

  it('must contain {callback_url} unless prepared', () => {
    bad(external({ link: 'https://forms.example.com/f' }), 'input.link');
    bad(external({ link: 'https://forms.example.com/f?cb={callback_URL}' }), 'input.link');
    expect(ask(external({ link: 'https://forms.example.com/f' }), prepared).link).toBe(
      'https://forms.example.com/f',
    );
    expect(ask(external({ link: '{callback_url}' })).link).toBe('{callback_url}');
  });

  it('is returned unresolved', () => {
    expect(ask(external()).link).toBe(LINK);
  });

  it('must resolve to an absolute http(s) URL on one line', () => {
    for (const link of [
      'javascript:alert(1)//{callback_url}',
      'ftp://example.com/{callback_url}',
      '/relative?cb={callback_url}',
      'https://example.com/a b?cb={callback_url}',
      'https://example.com/?cb={callback_url}\n',
      'https://user@example.com/?cb={callback_url}',
      'https://999.999.999.999/?cb={callback_url}',
    ]) {
      bad(external({ link }), 'input.link');
    }
    bad(external({ link: 'javascript:alert(1)' }), 'input.link', prepared);
    bad(external({ link: '' }), 'input.link', prepared);
  });

  it(`is at most ${LINK_MAX_CHARS} characters (at the cap and one past)`, () => {
    const base = 'https://example.com/?cb={callback_url}&p=';
    const at = `${base}${'x'.repeat(LINK_MAX_CHARS - base.length)}`;
    expect(ask(external({ link: at })).link).toBe(at);
    bad(external({ link: `${at}x` }), 'input.link');
  });
});

describe('validateAskInput: verifier', () => {
  it('binds a registered verifier on EXTERNAL, config defaulting to {}', () => {
    expect(ask(external({ verifier: { name: 'github' } })).verifier).toEqual({ name: 'github', config: {} });
    expect(ask(external({ verifier: { name: 'github', config: null } })).verifier).toEqual({
      name: 'github',
      config: {},
    });
    const config = { secretEnv: 'HMAC_SECRET', header: 'X-Sig', encoding: 'base64' };
    expect(ask(external({ verifier: { name: 'hmac-sha256', config } })).verifier).toEqual({
      name: 'hmac-sha256',
      config,
    });
  });

  it('is EXTERNAL only', () => {
    bad({ text: 'x', verifier: { name: 'github' } }, 'input.verifier');
    bad({ text: 'x', format: 'CONFIRM', verifier: { name: 'github' } }, 'input.verifier');
  });

  it('must name a registered verifier', () => {
    bad(external({ verifier: { name: 'stripe' } }), 'input.verifier.name');
    bad(external({ verifier: { name: 5 } }), 'input.verifier.name');
    bad(external({ verifier: {} }), 'input.verifier.name');
    bad(external({ verifier: 'github' }), 'input.verifier');
  });

  it('is not allowed with channel', () => {
    bad({ text: 'x', format: 'EXTERNAL', channel: 'slack', verifier: { name: 'github' } }, 'input.verifier');
  });

  it('rejects unknown verifier keys and a config that is not a JSON object', () => {
    bad(external({ verifier: { name: 'github', secret: 's' } }), 'input.verifier.secret');
    for (const config of [[], 'x', 1, { f: () => 1 }, { n: Number.NaN }]) {
      bad(external({ verifier: { name: 'github', config } }), 'input.verifier.config');
    }
  });
});

describe('validateAskInput: channel and recipient', () => {
  it('accepts a registered channel and a recipient with it', () => {
    const v = ask({ text: 'x', channel: 'slack', recipient: 'U123' });
    expect(v.channel).toBe('slack');
    expect(v.recipient).toBe('U123');
  });

  it('rejects an unknown channel', () => {
    bad({ text: 'x', channel: 'fax' }, 'input.channel');
    bad({ text: 'x', channel: '' }, 'input.channel');
    bad({ text: 'x', channel: 3 }, 'input.channel');
  });

  it('requires channel for recipient', () => {
    bad({ text: 'x', recipient: 'U123' }, 'input.recipient');
  });
});

describe('validateAskInput: timeoutSeconds', () => {
  it(`is an integer from ${TIMEOUT_MIN_SECONDS} to ${TIMEOUT_MAX_SECONDS} (at the caps and one past)`, () => {
    expect(ask({ text: 'x', timeoutSeconds: TIMEOUT_MIN_SECONDS }).timeoutSeconds).toBe(1);
    expect(ask({ text: 'x', timeoutSeconds: TIMEOUT_MAX_SECONDS }).timeoutSeconds).toBe(TIMEOUT_MAX_SECONDS);
    bad({ text: 'x', timeoutSeconds: TIMEOUT_MIN_SECONDS - 1 }, 'input.timeoutSeconds');
    bad({ text: 'x', timeoutSeconds: TIMEOUT_MAX_SECONDS + 1 }, 'input.timeoutSeconds');
  });

  it('rejects non-integers', () => {
    for (const t of [1.5, '60', Number.NaN, Number.POSITIVE_INFINITY, -5, true, 2 ** 60]) {
      bad({ text: 'x', timeoutSeconds: t }, 'input.timeoutSeconds');
    }
  });
});

describe('validateAskInput: audience, groupId, recipient, idempotencyKey', () => {
  const withLabel = (name: string, value: unknown) =>
    name === 'recipient' ? { text: 'x', channel: 'slack', recipient: value } : { text: 'x', [name]: value };

  for (const name of ['audience', 'groupId', 'recipient', 'idempotencyKey'] as const) {
    it(`${name}: non-blank, at most ${LABEL_MAX_CHARS} code points (at the cap and one past)`, () => {
      const at = 'é'.repeat(LABEL_MAX_CHARS - 1).concat('👍');
      expect(ask(withLabel(name, at))[name]).toBe(at);
      expect(ask(withLabel(name, 'a'.repeat(LABEL_MAX_CHARS)))[name]).toHaveLength(LABEL_MAX_CHARS);
      bad(withLabel(name, `${at}x`), `input.${name}`);
      bad(withLabel(name, ''), `input.${name}`);
      bad(withLabel(name, '   '), `input.${name}`);
      bad(withLabel(name, 7), `input.${name}`);
    });
  }
});

describe('validateAskInput: media and sensitive', () => {
  it('validates media under input.media', () => {
    bad({ text: 'x', media: [] }, 'input.media');
    bad(
      {
        text: 'x',
        media: [
          { kind: 'LINK', url: 'https://ok.example/' },
          { kind: 'IMAGE', url: 'http://x.example/' },
        ],
      },
      'input.media[1].url',
    );
    bad(
      { text: 'x', media: [{ kind: 'IMAGE', url: 'https://ok.example/', caption: '' }] },
      'input.media[0].caption',
    );
    expect(
      ask({ text: 'x', media: [{ kind: 'IMAGE', url: 'https://ok.example/a.png', caption: null }] }).media,
    ).toEqual([{ kind: 'IMAGE', url: 'https://ok.example/a.png' }]);
  });

  it('sensitive is a boolean defaulting to false', () => {
    expect(ask({ text: 'x', sensitive: true }).sensitive).toBe(true);
    expect(ask({ text: 'x', sensitive: false }).sensitive).toBe(false);
    bad({ text: 'x', sensitive: 'true' }, 'input.sensitive');
    bad({ text: 'x', sensitive: 1 }, 'input.sensitive');
  });
});

describe('validateAskInput: check order (first failure wins)', () => {
  it('checks field by field in the documented order', () => {
    bad({ text: '', bogus: 1 }, 'input.bogus');
    bad({ text: '', format: 'NOPE' }, 'input.text');
    bad({ text: 'x', format: 'NOPE', options: 5 }, 'input.format');
    bad({ text: 'x', options: ['a'], schema: {} }, 'input.options');
    bad({ text: 'x', schema: {}, link: LINK }, 'input.schema');
    bad({ text: 'x', link: LINK, verifier: { name: 'github' } }, 'input.link');
    bad({ text: 'x', verifier: { name: 'github' }, channel: 'fax' }, 'input.verifier');
    bad({ text: 'x', channel: 'fax', recipient: '' }, 'input.channel');
    bad({ text: 'x', recipient: 'r', timeoutSeconds: 0 }, 'input.recipient');
    bad({ text: 'x', timeoutSeconds: 0, audience: '' }, 'input.timeoutSeconds');
    bad({ text: 'x', audience: '', groupId: '' }, 'input.audience');
    bad({ text: 'x', groupId: '', idempotencyKey: '' }, 'input.groupId');
    bad({ text: 'x', idempotencyKey: '', media: [] }, 'input.idempotencyKey');
    bad({ text: 'x', media: [], sensitive: 'yes' }, 'input.media');
  });
});

describe('resolveLink', () => {
  const CB = 'https://hitl.example.com/api/interactions/callback/abc_DEF-123';

  it('replaces every {callback_url} verbatim', () => {
    expect(resolveLink('https://f.example/?a={callback_url}&b={callback_url}', CB, false)).toBe(
      `https://f.example/?a=${CB}&b=${CB}`,
    );
    expect(resolveLink('{callback_url}', CB, false)).toBe(CB);
  });

  it('does not interpret replacement patterns', () => {
    const cb = "https://hitl.example.com/cb/$&$1$$$'$`";
    expect(resolveLink('https://f.example/?u={callback_url}', cb, false)).toBe(`https://f.example/?u=${cb}`);
  });

  it('leaves a prepared link as it is', () => {
    expect(resolveLink('https://f.example/final', CB, true)).toBe('https://f.example/final');
    expect(resolveLink('https://f.example/?x={callback_url}', CB, true)).toBe(
      'https://f.example/?x={callback_url}',
    );
  });

  it('requires the placeholder when not prepared', () => {
    expectBad(() => resolveLink('https://f.example/final', CB, false), 'input.link');
  });

  it('requires an absolute http(s) URL on one line', () => {
    expectBad(() => resolveLink('ftp://f.example/{callback_url}', CB, false), 'input.link');
    expectBad(() => resolveLink('{callback_url}', 'not a url', false), 'input.link');
    expectBad(() => resolveLink('{callback_url}', `${CB}\n`, false), 'input.link');
    expectBad(() => resolveLink('javascript:alert(1)', CB, true), 'input.link');
    expectBad(() => resolveLink('relative/path', CB, true), 'input.link');
    expect(resolveLink('http://localhost:4000/x?{callback_url}', 'http://127.0.0.1:4000/cb', false)).toBe(
      'http://localhost:4000/x?http://127.0.0.1:4000/cb',
    );
  });
});

describe('validateAskInput: never throws anything but BAD_USER_INPUT', () => {
  const check = (raw: unknown, c: AskContext = ctx) => {
    try {
      validateAskInput(raw, c);
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('BAD_USER_INPUT');
      expect((err as DomainError).field?.startsWith('input')).toBe(true);
    }
  };

  it('holds for arbitrary values', () => {
    fc.assert(fc.property(fc.anything(), (raw) => check(raw)));
    fc.assert(fc.property(fc.jsonValue(), (raw) => check(raw)));
  });

  it('holds for arbitrary values in every field', () => {
    const any = fc.oneof(fc.anything(), fc.jsonValue(), fc.string(), fc.constant(null));
    const input = fc.record(
      {
        text: fc.oneof(fc.string(), any),
        format: fc.oneof(fc.constantFrom(...ANSWER_FORMATS), any),
        options: fc.oneof(fc.array(fc.string()), any),
        schema: fc.oneof(fc.constant({ type: 'object' }), fc.dictionary(fc.string(), fc.jsonValue()), any),
        link: fc.oneof(fc.constant(LINK), fc.webUrl(), any),
        verifier: fc.oneof(fc.record({ name: fc.constantFrom('github', 'x'), config: any }), any),
        channel: fc.oneof(fc.constantFrom('slack', 'fax'), any),
        recipient: any,
        audience: any,
        groupId: any,
        media: any,
        timeoutSeconds: fc.oneof(fc.integer(), fc.double(), any),
        sensitive: any,
        idempotencyKey: any,
      },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(input, fc.boolean(), (raw, p) => check(raw, { ...ctx, prepared: p })));
  });

  it('resolveLink holds for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string(), fc.boolean(), (t, cb, p) => {
        try {
          resolveLink(t, cb, p);
        } catch (err) {
          expect(err).toBeInstanceOf(DomainError);
          expect((err as DomainError).field).toBe('input.link');
        }
      }),
    );
  });
});
