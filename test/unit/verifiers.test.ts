import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { verifierPort } from '../../src/app/verifier-port.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { githubVerifier } from '../../src/verifiers/github.ts';
import { hmacSha256Verifier } from '../../src/verifiers/hmac-sha256.ts';
import { builtinVerifiers, createVerifierRegistry } from '../../src/verifiers/registry.ts';
import { stripeVerifier } from '../../src/verifiers/stripe.ts';
import {
  VerificationFailed,
  type Verifier,
  VerifierUnavailable,
  type VerifyRequest,
} from '../../src/verifiers/types.ts';

// Non-ASCII on purpose: the key is the UTF-8 bytes of the variable's value.
const SECRET = 'whsec_test-secret-Ωμ-0123456789abcdef';
const OTHER_SECRET = 'whsec_other-secret-9876543210';
const ENV = { HOOK_SECRET: SECRET } as const;
const CONFIG = { secretEnv: 'HOOK_SECRET' };
const BODY = Buffer.from('{"decision":"approve","note":"ünïcødé"}', 'utf8');
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW_S = NOW / 1000;

function mac(secret: string, ...parts: (string | Buffer)[]): Buffer {
  const h = createHmac('sha256', Buffer.from(secret, 'utf8'));
  for (const p of parts) h.update(p);
  return h.digest();
}
const hex = (secret: string, body: Buffer): string => mac(secret, body).toString('hex');

function req(headers: VerifyRequest['headers'], rawBody: Buffer = BODY, now: number = NOW): VerifyRequest {
  return { rawBody, headers, now };
}

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

function expectFailed(fn: () => void): VerificationFailed {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(VerificationFailed);
  const message = (err as Error).message;
  expect(message).not.toContain(SECRET);
  expect(message).not.toContain(BODY.toString('utf8'));
  return err as VerificationFailed;
}

function expectUnavailable(fn: () => void): VerifierUnavailable {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(VerifierUnavailable);
  expect((err as Error).message).not.toContain(SECRET);
  return err as VerifierUnavailable;
}

function expectBadConfig(verifier: Verifier, config: unknown, field: string): void {
  const err = thrown(() => verifier.checkConfig(config as Record<string, unknown>));
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('BAD_USER_INPUT');
  expect((err as DomainError).field).toBe(field);
}

const F = 'input.verifier.config';

/** Config shapes every built-in refuses the same way. */
function sharedConfigCases(verifier: Verifier): void {
  it.each([
    ['an array', [], F],
    ['null', null, F],
    ['an unknown key', { secretEnv: 'HOOK_SECRET', secret: 'x' }, `${F}.secret`],
    ['no secretEnv', {}, `${F}.secretEnv`],
    ['a secretEnv that is not a string', { secretEnv: 42 }, `${F}.secretEnv`],
    ['an empty secretEnv', { secretEnv: '' }, `${F}.secretEnv`],
    ['a secretEnv starting with a digit', { secretEnv: '1SECRET' }, `${F}.secretEnv`],
    ['a secretEnv with a dash', { secretEnv: 'HOOK-SECRET' }, `${F}.secretEnv`],
    ['a secretEnv with a space', { secretEnv: 'HOOK SECRET' }, `${F}.secretEnv`],
    ['a secretEnv of 129 characters', { secretEnv: 'A'.repeat(129) }, `${F}.secretEnv`],
  ])('checkConfig refuses %s', (_label, config, field) => {
    expectBadConfig(verifier, config, field);
  });

  it('checkConfig accepts a secretEnv of 128 characters, either case, with _ and digits', () => {
    verifier.checkConfig({ secretEnv: 'A'.repeat(128) });
    verifier.checkConfig({ secretEnv: '_hook_Secret_2' });
  });

  it('checkConfig does not read the environment (a config naming an unset variable is fine)', () => {
    verifier.checkConfig({ secretEnv: 'SURELY_NOT_SET_ANYWHERE_0123' });
  });

  it('is a body-signing verifier', () => {
    expect(verifier.signsBody).toBe(true);
  });
}

describe('registry', () => {
  it('holds the three built-ins by name', () => {
    const registry = createVerifierRegistry(builtinVerifiers());
    expect([...registry.names()].sort()).toEqual(['github', 'hmac-sha256', 'stripe']);
    expect(registry.get('stripe')).toBe(stripeVerifier);
    expect(registry.get('github')).toBe(githubVerifier);
    expect(registry.get('hmac-sha256')).toBe(hmacSha256Verifier);
    expect(registry.get('nope')).toBeUndefined();
    expect(registry.get('__proto__')).toBeUndefined();
    expect(registry.get('constructor')).toBeUndefined();
  });

  it('refuses two verifiers with one name', () => {
    expect(() => createVerifierRegistry([stripeVerifier, { ...githubVerifier, name: 'stripe' }])).toThrow(
      /duplicate/,
    );
  });

  it('an empty registry has no names, and names() cannot change what is registered', () => {
    expect(createVerifierRegistry([]).names().size).toBe(0);
    const registry = createVerifierRegistry(builtinVerifiers());
    (registry.names() as Set<string>).add('evil');
    expect(registry.names().has('evil')).toBe(false);
  });

  it('builtinVerifiers returns a fresh list', () => {
    const a = builtinVerifiers();
    a.pop();
    expect(builtinVerifiers()).toHaveLength(3);
  });
});

describe('hmac-sha256', () => {
  const v = hmacSha256Verifier;
  const good = hex(SECRET, BODY);

  it('passes a correct sha256=<hex> signature in the default header', () => {
    v.verify(req({ 'x-signature-256': `sha256=${good}` }), CONFIG, ENV);
  });

  it('passes bare hex, uppercase hex and an uppercase prefix', () => {
    v.verify(req({ 'x-signature-256': good }), CONFIG, ENV);
    v.verify(req({ 'x-signature-256': good.toUpperCase() }), CONFIG, ENV);
    v.verify(req({ 'x-signature-256': `SHA256=${good.toUpperCase()}` }), CONFIG, ENV);
    v.verify(req({ 'x-signature-256': `sha256=${good}` }), { ...CONFIG, encoding: 'hex' }, ENV);
  });

  it('passes base64, with and without padding, and base64url', () => {
    const config = { ...CONFIG, encoding: 'base64' };
    const raw = mac(SECRET, BODY);
    const b64 = raw.toString('base64');
    expect(b64.endsWith('=')).toBe(true);
    v.verify(req({ 'x-signature-256': b64 }), config, ENV);
    v.verify(req({ 'x-signature-256': b64.replace(/=+$/, '') }), config, ENV);
    v.verify(req({ 'x-signature-256': raw.toString('base64url') }), config, ENV);
  });

  it('with base64 encoding, a hex signature fails; with hex, a base64 one fails', () => {
    expectFailed(() => v.verify(req({ 'x-signature-256': good }), { ...CONFIG, encoding: 'base64' }, ENV));
    const b64 = mac(SECRET, BODY).toString('base64');
    expectFailed(() => v.verify(req({ 'x-signature-256': b64 }), CONFIG, ENV));
  });

  it('reads a custom header (configured in any case, read lower-cased)', () => {
    const config = { ...CONFIG, header: 'X-Acme-Signature' };
    v.verify(req({ 'x-acme-signature': good }), config, ENV);
    expectFailed(() => v.verify(req({ 'x-signature-256': good }), config, ENV));
  });

  it('passes when any one of several header values matches (array or comma-joined)', () => {
    const bad = hex(OTHER_SECRET, BODY);
    v.verify(req({ 'x-signature-256': [`sha256=${bad}`, 'garbage', `sha256=${good}`] }), CONFIG, ENV);
    v.verify(req({ 'x-signature-256': `sha256=${bad}, sha256=${good}` }), CONFIG, ENV);
    expectFailed(() => v.verify(req({ 'x-signature-256': [`sha256=${bad}`, 'garbage'] }), CONFIG, ENV));
  });

  it('fails a wrong signature, a tampered body, a missing or empty header', () => {
    expectFailed(() => v.verify(req({ 'x-signature-256': hex(OTHER_SECRET, BODY) }), CONFIG, ENV));
    const tampered = Buffer.from(BODY.toString('utf8').replace('approve', 'reject'), 'utf8');
    expectFailed(() => v.verify(req({ 'x-signature-256': good }, tampered), CONFIG, ENV));
    expect(expectFailed(() => v.verify(req({}), CONFIG, ENV)).message).toMatch(/missing/);
    expectFailed(() => v.verify(req({ 'x-signature-256': '' }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-signature-256': [] }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-signature-256': undefined }), CONFIG, ENV));
  });

  it('fails a truncated, extended or non-hex signature', () => {
    expectFailed(() => v.verify(req({ 'x-signature-256': good.slice(0, 63) }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-signature-256': `${good}0` }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-signature-256': `${good.slice(0, 63)}g` }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-signature-256': `sha1=${good}` }), CONFIG, ENV));
    const short = mac(SECRET, BODY).subarray(0, 31).toString('base64');
    expectFailed(() => v.verify(req({ 'x-signature-256': short }), { ...CONFIG, encoding: 'base64' }, ENV));
  });

  it('refuses more than 16 candidate signatures, even with a good one among them', () => {
    const many = [...Array.from({ length: 16 }, () => 'x'), good];
    expect(expectFailed(() => v.verify(req({ 'x-signature-256': many }), CONFIG, ENV)).message).toMatch(
      /too many/,
    );
  });

  it('fails closed when the secret variable is unset or empty, naming the variable only', () => {
    const err = expectUnavailable(() => v.verify(req({ 'x-signature-256': good }), CONFIG, {}));
    expect(err.message).toContain('HOOK_SECRET');
    expectUnavailable(() => v.verify(req({ 'x-signature-256': good }), CONFIG, { HOOK_SECRET: '' }));
    expectUnavailable(() => v.verify(req({}), CONFIG, { HOOK_SECRET: undefined }));
  });

  it('never takes a secret from the prototype chain', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      expectUnavailable(() => v.verify(req({ 'x-signature-256': good }), { secretEnv: name }, {}));
    }
  });

  it('fails closed on a stored config that no longer checks', () => {
    expectUnavailable(() => v.verify(req({ 'x-signature-256': good }), { secretEnv: 'bad-name' }, ENV));
    expectUnavailable(() => v.verify(req({ 'x-signature-256': good }), { ...CONFIG, extra: 1 }, ENV));
  });

  sharedConfigCases(v);

  it.each([
    ['an encoding of HEX', { encoding: 'HEX' }, `${F}.encoding`],
    ['an encoding of base64url', { encoding: 'base64url' }, `${F}.encoding`],
    ['an encoding that is not a string', { encoding: 1 }, `${F}.encoding`],
    ['an encoding of null', { encoding: null }, `${F}.encoding`],
    ['an empty header', { header: '' }, `${F}.header`],
    ['a header with a space', { header: 'X Signature' }, `${F}.header`],
    ['a header with a colon', { header: 'X-Sig:' }, `${F}.header`],
    ['a header with a non-ASCII letter', { header: 'X-Sïg' }, `${F}.header`],
    ['a header of 129 characters', { header: 'h'.repeat(129) }, `${F}.header`],
    ['a header that is not a string', { header: ['X-Sig'] }, `${F}.header`],
  ])('checkConfig refuses %s', (_label, extra, field) => {
    expectBadConfig(v, { ...CONFIG, ...extra }, field);
  });

  it('checkConfig accepts every documented option', () => {
    v.checkConfig(CONFIG);
    v.checkConfig({ ...CONFIG, header: 'X-Acme_Sig.v2', encoding: 'hex' });
    v.checkConfig({ ...CONFIG, header: 'h'.repeat(128), encoding: 'base64' });
  });
});

describe('stripe', () => {
  const v = stripeVerifier;
  const sig = (t: number | string, secret = SECRET, body = BODY): string =>
    mac(secret, `${t}.`, body).toString('hex');
  const header = (t: number | string, ...v1: string[]): VerifyRequest['headers'] => ({
    'stripe-signature': [`t=${t}`, ...v1.map((s) => `v1=${s}`)].join(','),
  });

  it('passes a correct signature', () => {
    v.verify(req(header(NOW_S, sig(NOW_S))), CONFIG, ENV);
  });

  it('tolerates whitespace around items and ignores other schemes', () => {
    const s = sig(NOW_S);
    v.verify(req({ 'stripe-signature': ` t = ${NOW_S} , v0=${'0'.repeat(64)} ,  v1=${s} ` }), CONFIG, ENV);
    v.verify(req({ 'stripe-signature': `v1=${s},t=${NOW_S},foo,v0=zzz` }), CONFIG, ENV);
  });

  it('passes when only the second v1 is valid (secret rotation)', () => {
    v.verify(req(header(NOW_S, sig(NOW_S, OTHER_SECRET), sig(NOW_S))), CONFIG, ENV);
  });

  it('accepts uppercase hex', () => {
    v.verify(req(header(NOW_S, sig(NOW_S).toUpperCase())), CONFIG, ENV);
  });

  it('passes a timestamp exactly at the tolerance, in the past and the future', () => {
    for (const t of [NOW_S - 300, NOW_S + 300]) v.verify(req(header(t, sig(t))), CONFIG, ENV);
  });

  it('fails a timestamp one second past the tolerance, in the past and the future', () => {
    for (const t of [NOW_S - 301, NOW_S + 301]) {
      expect(expectFailed(() => v.verify(req(header(t, sig(t))), CONFIG, ENV)).message).toMatch(/tolerance/);
    }
  });

  it('compares with now in milliseconds: a millisecond past the tolerance fails', () => {
    const t = NOW_S - 300;
    expectFailed(() => v.verify(req(header(t, sig(t)), BODY, NOW + 1), CONFIG, ENV));
    v.verify(req(header(t, sig(t)), BODY, NOW - 1), CONFIG, ENV);
  });

  it('honours a configured tolerance, at its limits', () => {
    const cfg = { ...CONFIG, toleranceSeconds: 10 };
    v.verify(req(header(NOW_S - 10, sig(NOW_S - 10))), cfg, ENV);
    expectFailed(() => v.verify(req(header(NOW_S - 11, sig(NOW_S - 11))), cfg, ENV));
    const one = { ...CONFIG, toleranceSeconds: 1 };
    v.verify(req(header(NOW_S + 1, sig(NOW_S + 1))), one, ENV);
    expectFailed(() => v.verify(req(header(NOW_S + 2, sig(NOW_S + 2))), one, ENV));
    const day = { ...CONFIG, toleranceSeconds: 86_400 };
    v.verify(req(header(NOW_S - 86_400, sig(NOW_S - 86_400))), day, ENV);
    expectFailed(() => v.verify(req(header(NOW_S - 86_401, sig(NOW_S - 86_401))), day, ENV));
  });

  it('fails a wrong signature, a tampered body, a missing or empty header', () => {
    expectFailed(() => v.verify(req(header(NOW_S, sig(NOW_S, OTHER_SECRET))), CONFIG, ENV));
    const tampered = Buffer.concat([BODY, Buffer.from(' ')]);
    expectFailed(() => v.verify(req(header(NOW_S, sig(NOW_S)), tampered), CONFIG, ENV));
    expect(expectFailed(() => v.verify(req({}), CONFIG, ENV)).message).toMatch(/missing/);
    expectFailed(() => v.verify(req({ 'stripe-signature': '' }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'stripe-signature': [] }), CONFIG, ENV));
  });

  it('binds the timestamp: a signature over another t, or over the body alone, fails', () => {
    expectFailed(() => v.verify(req(header(NOW_S, sig(NOW_S - 1))), CONFIG, ENV));
    expectFailed(() => v.verify(req(header(NOW_S, hex(SECRET, BODY))), CONFIG, ENV));
  });

  it('fails a missing t, a header with no v1, and a repeated t', () => {
    const s = sig(NOW_S);
    expectFailed(() => v.verify(req({ 'stripe-signature': `v1=${s}` }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'stripe-signature': `t=${NOW_S}` }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'stripe-signature': `t=${NOW_S},v0=${s}` }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'stripe-signature': `t=${NOW_S},t=${NOW_S},v1=${s}` }), CONFIG, ENV));
  });

  it.each([['abc'], ['-1'], ['1.5e9'], [''], ['0x10'], ['1 700000000'], ['9'.repeat(13)]])(
    'fails a non-numeric or out-of-range t (%s)',
    (t) => {
      expectFailed(() => v.verify(req(header(t, sig(t))), CONFIG, ENV));
    },
  );

  it('fails a malformed v1 even when the timestamp is fine', () => {
    expectFailed(() => v.verify(req(header(NOW_S, sig(NOW_S).slice(2))), CONFIG, ENV));
    expectFailed(() => v.verify(req(header(NOW_S, `sha256=${sig(NOW_S)}`)), CONFIG, ENV));
  });

  it('passes when any one of several header values verifies', () => {
    const good = `t=${NOW_S},v1=${sig(NOW_S)}`;
    v.verify(req({ 'stripe-signature': ['t=1,v1=00', good] }), CONFIG, ENV);
    expectFailed(() => v.verify(req({ 'stripe-signature': ['t=1,v1=00', 'junk'] }), CONFIG, ENV));
  });

  it('refuses more than 16 v1 signatures', () => {
    const many = Array.from({ length: 16 }, () => '0'.repeat(64));
    expectFailed(() => v.verify(req(header(NOW_S, ...many, sig(NOW_S))), CONFIG, ENV));
  });

  it('fails closed when the secret variable is unset, or the clock is not a number', () => {
    const h = header(NOW_S, sig(NOW_S));
    expect(expectUnavailable(() => v.verify(req(h), CONFIG, {})).message).toContain('HOOK_SECRET');
    expectUnavailable(() => v.verify(req(h, BODY, Number.NaN), CONFIG, ENV));
    expectUnavailable(() => v.verify(req(h, BODY, Number.POSITIVE_INFINITY), CONFIG, ENV));
    expectUnavailable(() => v.verify(req(h), { ...CONFIG, toleranceSeconds: 0 }, ENV));
  });

  sharedConfigCases(v);

  it.each([
    ['toleranceSeconds 0', { toleranceSeconds: 0 }],
    ['toleranceSeconds 86401', { toleranceSeconds: 86_401 }],
    ['toleranceSeconds -5', { toleranceSeconds: -5 }],
    ['toleranceSeconds 1.5', { toleranceSeconds: 1.5 }],
    ['toleranceSeconds as a string', { toleranceSeconds: '300' }],
    ['toleranceSeconds null', { toleranceSeconds: null }],
    ['toleranceSeconds NaN', { toleranceSeconds: Number.NaN }],
  ])('checkConfig refuses %s', (_label, extra) => {
    expectBadConfig(v, { ...CONFIG, ...extra }, `${F}.toleranceSeconds`);
  });

  it('checkConfig accepts toleranceSeconds 1 and 86400, and refuses the hmac options', () => {
    v.checkConfig({ ...CONFIG, toleranceSeconds: 1 });
    v.checkConfig({ ...CONFIG, toleranceSeconds: 86_400 });
    expectBadConfig(v, { ...CONFIG, header: 'X-Sig' }, `${F}.header`);
    expectBadConfig(v, { ...CONFIG, encoding: 'hex' }, `${F}.encoding`);
  });
});

describe('github', () => {
  const v = githubVerifier;
  const good = hex(SECRET, BODY);

  it('passes a correct X-Hub-Signature-256 (hex in either case)', () => {
    v.verify(req({ 'x-hub-signature-256': `sha256=${good}` }), CONFIG, ENV);
    v.verify(req({ 'x-hub-signature-256': `sha256=${good.toUpperCase()}` }), CONFIG, ENV);
  });

  it('fails a sha1= signature, even a correct SHA-1 HMAC, and a bare hex without its prefix', () => {
    const sha1 = createHmac('sha1', SECRET).update(BODY).digest('hex');
    expectFailed(() => v.verify(req({ 'x-hub-signature-256': `sha1=${sha1}` }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-hub-signature-256': `sha1=${good}` }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-hub-signature-256': good }), CONFIG, ENV));
    expectFailed(() => v.verify(req({ 'x-hub-signature': `sha1=${sha1}` }), CONFIG, ENV));
  });

  it('fails a wrong signature, a tampered body, a missing header', () => {
    expectFailed(() =>
      v.verify(req({ 'x-hub-signature-256': `sha256=${hex(OTHER_SECRET, BODY)}` }), CONFIG, ENV),
    );
    const tampered = Buffer.from(BODY);
    tampered[0] = 0x5b;
    expectFailed(() => v.verify(req({ 'x-hub-signature-256': `sha256=${good}` }, tampered), CONFIG, ENV));
    expect(expectFailed(() => v.verify(req({}), CONFIG, ENV)).message).toMatch(/missing/);
    expectFailed(() => v.verify(req({ 'x-signature-256': `sha256=${good}` }), CONFIG, ENV));
  });

  it('passes when one of several values matches', () => {
    v.verify(req({ 'x-hub-signature-256': ['sha256=00', `sha256=${good}`] }), CONFIG, ENV);
  });

  it('fails closed when the secret variable is unset', () => {
    expectUnavailable(() => v.verify(req({ 'x-hub-signature-256': `sha256=${good}` }), CONFIG, {}));
  });

  sharedConfigCases(v);

  it('checkConfig refuses the options of the other verifiers', () => {
    expectBadConfig(v, { ...CONFIG, header: 'X-Sig' }, `${F}.header`);
    expectBadConfig(v, { ...CONFIG, toleranceSeconds: 300 }, `${F}.toleranceSeconds`);
  });
});

describe('properties', () => {
  const verifiers = builtinVerifiers();
  const configs: Record<string, Record<string, unknown>[]> = {
    'hmac-sha256': [CONFIG, { ...CONFIG, encoding: 'base64' }, { ...CONFIG, header: 'X-Custom' }],
    stripe: [CONFIG, { ...CONFIG, toleranceSeconds: 1 }],
    github: [CONFIG],
  };
  const hexString = fc.stringMatching(/^[0-9a-fA-F]{0,66}$/);
  const headerValue = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
    hexString,
    hexString.map((h) => `sha256=${h}`),
    fc.base64String({ maxLength: 48 }),
    fc
      .tuple(
        fc.oneof(fc.integer({ min: -1e12, max: 1e13 }).map(String), fc.string({ maxLength: 12 })),
        fc.array(hexString, { maxLength: 20 }),
      )
      .map(([t, v1s]) => [`t=${t}`, ...v1s.map((s) => `v1=${s}`)].join(',')),
  );
  const headers = fc.dictionary(
    fc.constantFrom('x-signature-256', 'x-custom', 'stripe-signature', 'x-hub-signature-256', 'other'),
    fc.oneof(headerValue, fc.array(headerValue, { maxLength: 20 }), fc.constant(undefined)),
  );

  it('random headers and bodies only ever fail with VerificationFailed or VerifierUnavailable', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...verifiers),
        fc.nat({ max: 2 }),
        headers,
        fc.uint8Array({ maxLength: 256 }),
        fc.oneof(fc.integer({ min: 0, max: 4e12 }), fc.double()),
        fc.constantFrom<Readonly<Record<string, string | undefined>>>(ENV, {}, { HOOK_SECRET: '' }),
        (verifier, which, hdrs, body, now, env) => {
          const list = configs[verifier.name] ?? [];
          const config = list[which % list.length] ?? CONFIG;
          const err = thrown(() => verifier.verify(req(hdrs, Buffer.from(body), now), config, env));
          if (err === undefined) return; // a random value that verifies is astronomically unlikely but allowed
          expect(err instanceof VerificationFailed || err instanceof VerifierUnavailable).toBe(true);
          const message = (err as Error).message;
          expect(message).not.toContain(SECRET);
          for (const value of Object.values(hdrs).flat()) {
            if (typeof value === 'string' && value.length >= 12) expect(message).not.toContain(value);
          }
        },
      ),
      { numRuns: 600 },
    );
  });

  it('a correct signature over any body verifies', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.integer({ min: -300, max: 300 }), (bytes, skew) => {
        const body = Buffer.from(bytes);
        const sha = hex(SECRET, body);
        hmacSha256Verifier.verify(req({ 'x-signature-256': sha }, body), CONFIG, ENV);
        githubVerifier.verify(req({ 'x-hub-signature-256': `sha256=${sha}` }, body), CONFIG, ENV);
        const t = NOW_S + skew;
        const v1 = mac(SECRET, `${t}.`, body).toString('hex');
        stripeVerifier.verify(req({ 'stripe-signature': `t=${t},v1=${v1}` }, body), CONFIG, ENV);
      }),
    );
  });

  it('checkConfig on any JSON object passes or throws BAD_USER_INPUT under input.verifier.config', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
    const config = fc.oneof(
      fc.dictionary(fc.string({ maxLength: 12 }), value),
      fc.record(
        {
          secretEnv: fc.oneof(fc.constant('HOOK_SECRET'), fc.string({ maxLength: 140 }), value),
          header: fc.oneof(fc.constant('X-Sig'), value),
          encoding: fc.oneof(fc.constantFrom('hex', 'base64'), value),
          toleranceSeconds: fc.oneof(fc.integer({ min: -10, max: 100_000 }), value),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(fc.constantFrom(...verifiers), config, (verifier, cfg) => {
        const err = thrown(() => verifier.checkConfig(cfg));
        if (err === undefined) return;
        expect(err).toBeInstanceOf(DomainError);
        expect((err as DomainError).code).toBe('BAD_USER_INPUT');
        expect((err as DomainError).field?.startsWith(F)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

describe('the verifier port: only declared variables', () => {
  const config = loadConfig({
    HOOK_SECRET: SECRET,
    HOME: '/root',
    INTERACTIONS_VERIFIER_SECRETS: 'HOOK_SECRET,DECLARED_UNSET',
  });
  const port = verifierPort(createVerifierRegistry(builtinVerifiers()), config);
  const signed = (secretEnv: string) =>
    port.verify(
      'hmac-sha256',
      { secretEnv },
      { rawBody: BODY, headers: { 'x-signature-256': `sha256=${hex(SECRET, BODY)}` }, now: NOW },
    );

  it('accepts a declared variable at ask time and verifies with its value', () => {
    expect(() => port.checkConfig('hmac-sha256', { secretEnv: 'HOOK_SECRET' })).not.toThrow();
    expect(signed('HOOK_SECRET')).toBe('ok');
  });

  it.each(['HOME', 'PATH', 'INTERACTIONS_REDIS_URL', 'INTERACTIONS_API_KEYS', 'NOT_SET_ANYWHERE'])(
    'refuses %s at ask time with BAD_USER_INPUT at input.verifier.config.secretEnv',
    (name) => {
      for (const verifier of ['hmac-sha256', 'stripe', 'github']) {
        let caught: unknown;
        try {
          port.checkConfig(verifier, { secretEnv: name });
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(DomainError);
        expect(caught).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.verifier.config.secretEnv' });
      }
    },
  );

  it('fails closed for a declared but unset variable, and an undeclared one never reads the environment', () => {
    expect(signed('DECLARED_UNSET')).toBe('unavailable');
    expect(signed('HOME')).toBe('unavailable');
  });

  it("keeps each verifier's own config errors first", () => {
    expect(() => port.checkConfig('hmac-sha256', { secretEnv: 'not a name' })).toThrow(
      expect.objectContaining({
        field: 'input.verifier.config.secretEnv',
        message: expect.stringMatching(/letters/),
      }),
    );
  });
});
