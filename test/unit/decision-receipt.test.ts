// Decision receipts' pure parts (API.md §16): the JCS digest, the claims of each outcome, and the
// key-set parser's refusals (one line each, never quoting key material).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { receiptClaimsOf } from '../../src/domain/decision-receipt.ts';
import { canonicalJson, jcsDigest } from '../../src/domain/digest.ts';
import { type QuestionRecord, recordOf } from '../../src/domain/question.ts';
import { MAX_RECEIPT_KEYS, parseReceiptKeySet } from '../../src/proof/receipt-keys.ts';
import { specOf } from '../support/fixtures.ts';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

function question(over: Partial<QuestionRecord> = {}): QuestionRecord {
  return { ...recordOf(specOf({ id: 'q1', text: 'Deploy?', createdAt: T0 }), null), ...over };
}

/** A syntactically valid Ed25519 JWK part: 32 bytes in base64url. */
const PART = 'A'.repeat(43);
const key = (kid: string, over: Record<string, unknown> = {}) => ({
  kty: 'OKP',
  crv: 'Ed25519',
  x: PART,
  d: PART,
  kid,
  ...over,
});

describe('jcsDigest', () => {
  it('hashes the RFC 8785 canonical form (keys sorted, no spaces), as sha256sum does', () => {
    // printf '{"a":1,"b":[true,"x"]}' | sha256sum
    expect(canonicalJson({ b: [true, 'x'], a: 1 })).toBe('{"a":1,"b":[true,"x"]}');
    expect(jcsDigest({ b: [true, 'x'], a: 1 })).toBe(
      'sha256:63e8063d9dc6f0fd5a24b4706818a165fd57c3531b74466cf5dea62bff09b0b6',
    );
    // A text is hashed as a JSON string: printf '"hello"' | sha256sum
    expect(jcsDigest('hello')).toBe(
      'sha256:5aa762ae383fbb727af3c7a36d4940a5b8c40a989452d2304fc958ff3f354e7a',
    );
  });

  it('refuses a value with no JSON form', () => {
    expect(() => jcsDigest(undefined)).toThrow(/no digest/);
  });
});

describe('receiptClaimsOf', () => {
  it('is null while the question is pending', () => {
    expect(receiptClaimsOf(question(), 'https://hitl.example')).toBeNull();
  });

  it('states an answer by its digest, who gave it, through which door and when', () => {
    const q = question({ status: 'ANSWERED', answer: true, answeredBy: 'ops', answeredAt: T0 + 5000 });
    const claims = receiptClaimsOf(q, 'https://hitl.example');
    expect(claims).toEqual({
      iss: 'https://hitl.example',
      sub: 'q1',
      iat: Math.floor((T0 + 5000) / 1000),
      jti: 'receipt:q1',
      question: {
        format: 'CONFIRM',
        askedBy: 'agent',
        createdAt: '2026-12-01T12:00:00.000Z',
        textDigest: jcsDigest('Deploy?'),
      },
      outcome: {
        status: 'ANSWERED',
        decision: 'APPROVED',
        answerDigest: jcsDigest(true),
        answeredBy: 'ops',
        via: 'api',
        at: '2026-12-01T12:00:05.000Z',
      },
    });
    expect(JSON.stringify(claims)).not.toContain('Deploy?');
  });

  it('names the door: the callback door, or the channel the answer came through', () => {
    const cb = question({ status: 'ANSWERED', answer: { ok: 1 }, answeredBy: 'callback', answeredAt: T0 });
    expect(receiptClaimsOf(cb, 'x')?.outcome.via).toBe('callback');
    const ch = question({
      status: 'ANSWERED',
      answer: 'y',
      channel: 'ops-slack',
      answeredBy: 'ops-slack:U1',
      answeredAt: T0,
    });
    expect(receiptClaimsOf(ch, 'x')?.outcome.via).toBe('channel:ops-slack');
    const here = question({ status: 'ANSWERED', answer: 'y', answeredBy: 'mcp:agent', answeredAt: T0 });
    expect(receiptClaimsOf(here, 'x')?.outcome.via).toBe('mcp');
  });

  it('gives no digest of a sensitive answer (a yes or a no would show through it)', () => {
    const q = question({
      sensitive: true,
      status: 'ANSWERED',
      answer: null,
      answeredBy: 'ops',
      answeredAt: T0,
    });
    const claims = receiptClaimsOf(q, 'x');
    expect(claims?.outcome.status).toBe('ANSWERED');
    expect(claims?.outcome).not.toHaveProperty('answerDigest');
  });

  it('states a timeout and a cancellation with their time and no answer', () => {
    for (const status of ['TIMED_OUT', 'CANCELLED'] as const) {
      const claims = receiptClaimsOf(question({ status, closedAt: T0 + 60_000 }), 'x');
      expect(claims?.outcome).toEqual({ status, at: '2026-12-01T12:01:00.000Z' });
    }
  });
});

describe('parseReceiptKeySet', () => {
  it('takes Ed25519 private keys with kids, in order', () => {
    const keys = parseReceiptKeySet(JSON.stringify({ keys: [key('new'), key('old')] }));
    expect(keys.map((k) => k.kid)).toEqual(['new', 'old']);
  });

  it(`takes ${MAX_RECEIPT_KEYS} keys and refuses one more`, () => {
    const many = (n: number) => JSON.stringify({ keys: Array.from({ length: n }, (_, i) => key(`k${i}`)) });
    expect(parseReceiptKeySet(many(MAX_RECEIPT_KEYS))).toHaveLength(MAX_RECEIPT_KEYS);
    expect(() => parseReceiptKeySet(many(MAX_RECEIPT_KEYS + 1))).toThrow(`at most ${MAX_RECEIPT_KEYS} keys`);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no keys', '{"keys":[]}', /at least one key/],
    ['another curve', JSON.stringify({ keys: [key('a', { crv: 'X25519' })] }), /Ed25519/],
    ['no kid', JSON.stringify({ keys: [key('a', { kid: undefined })] }), /needs a "kid"/],
    ['a kid used twice', JSON.stringify({ keys: [key('a'), key('a')] }), /used twice/],
    ['a public key only', JSON.stringify({ keys: [key('a', { d: undefined })] }), /private part "d"/],
    ['a short x', JSON.stringify({ keys: [key('a', { x: 'AAAA' })] }), /"x" is not/],
  ])('refuses %s with one line', (_name, text, message) => {
    expect(() => parseReceiptKeySet(text)).toThrow(message);
  });

  it('is read through INTERACTIONS_RECEIPT_KEYS_FILE, whose errors name the variable and never the key', () => {
    const secret = `${'S'.repeat(42)}x`;
    const file = JSON.stringify({ keys: [key('k1', { d: secret, x: 'short' })] });
    const read = () => file;
    expect(() => loadConfig({ INTERACTIONS_RECEIPT_KEYS_FILE: '/keys.json' }, read)).toThrow(
      /^INTERACTIONS_RECEIPT_KEYS_FILE: key 1: "x" is not an Ed25519 public key$/,
    );
    try {
      loadConfig({ INTERACTIONS_RECEIPT_KEYS_FILE: '/keys.json' }, read);
    } catch (err) {
      expect((err as Error).message).not.toContain(secret);
    }
    const good = JSON.stringify({ keys: [key('k1')] });
    expect(loadConfig({ INTERACTIONS_RECEIPT_KEYS_FILE: '/k.json' }, () => good).deliveryKeys?.[0]?.kid).toBe(
      'k1',
    );
    expect(loadConfig({}).deliveryKeys).toBeNull();
    expect(() =>
      loadConfig({ INTERACTIONS_RECEIPT_KEYS_FILE: '/missing.json' }, () => {
        throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      }),
    ).toThrow(/^INTERACTIONS_RECEIPT_KEYS_FILE: cannot read "\/missing.json" \(ENOENT\)$/);
  });
});
