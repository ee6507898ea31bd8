// Decision receipts end to end (API.md §16): a server signs a receipt for each way a question
// ends, and it is checked here with the Web Crypto API directly (not the JOSE library the server
// signs with) against the keys the server publishes at /.well-known/jwks.json. The SDK's
// verifyReceipt and `tai receipts verify` refuse what was altered, signed by another key, or
// about another question; rotation keeps old receipts verifiable; two instances on one Redis
// with the same keys give the same bytes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptVerificationError, verifyReceipt } from '../../src/client/index.ts';
import { jcsDigest } from '../../src/domain/digest.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { uniquePrefix } from '../support/fixtures.ts';
import { auth, startServer, type TestServer, type Who } from '../support/server.ts';

interface PrivateJwk {
  kty: string;
  crv: string;
  x: string;
  d: string;
  kid: string;
}

/** An Ed25519 key made by Web Crypto, as a receipt key file holds it. */
async function webCryptoKey(kid: string): Promise<PrivateJwk> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string, d: jwk.d as string, kid };
}

const b64url = (s: string): Buffer => Buffer.from(s, 'base64url');

/** Verifies a compact JWS with Web Crypto alone; returns the header and payload, or null. */
async function webCryptoVerify(
  jws: string,
  jwks: { keys: { kid: string; x: string }[] },
): Promise<{ header: Record<string, unknown>; payload: Record<string, unknown> } | null> {
  const [h, p, s] = jws.split('.');
  if (!h || !p || !s) return null;
  const header = JSON.parse(b64url(h).toString('utf8')) as Record<string, unknown>;
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk || header.alg !== 'EdDSA') return null;
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
    { name: 'Ed25519' },
    false,
    ['verify'],
  );
  const ok = await crypto.subtle.verify(
    { name: 'Ed25519' },
    key,
    new Uint8Array(b64url(s)),
    new TextEncoder().encode(`${h}.${p}`),
  );
  return ok ? { header, payload: JSON.parse(b64url(p).toString('utf8')) } : null;
}

const dir = mkdtempSync(join(tmpdir(), 'tai-receipts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, keys: PrivateJwk[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ keys }));
  return path;
}

function gqlOn(t: TestServer) {
  return async (who: Who, query: string, variables: Record<string, unknown> = {}) => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth(who), 'content-type': 'application/json' },
      payload: { query, variables },
    });
    const body = r.json();
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data;
  };
}

const ASK =
  'mutation($i: AskUserInput!, $h: Int) { askUser(input: $i, holdSeconds: $h) { status receipt question { id receipt } } }';
const QUESTION = 'query($id: ID!) { question(id: $id) { status receipt } }';

describe('decision receipts on one server', () => {
  let t: TestServer;
  let gql: ReturnType<typeof gqlOn>;
  let key: PrivateJwk;
  let jwks: { keys: { kid: string; x: string; d?: string }[] };

  beforeAll(async () => {
    key = await webCryptoKey('k-2026');
    t = await startServer({
      store: 'memory',
      env: { INTERACTIONS_RECEIPT_KEYS_FILE: keyFile('one', [key]) },
    });
    gql = gqlOn(t);
    const r = await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toContain('application/jwk-set+json');
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    jwks = r.json();
  });
  afterAll(() => t.close());

  it('publishes only the public part of each key, without a key to ask for it', () => {
    expect(jwks.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: key.x, kid: 'k-2026', alg: 'EdDSA', use: 'sig' },
    ]);
    expect(JSON.stringify(jwks)).not.toContain(key.d);
  });

  it('gives no receipt while pending, and one for an answer that Web Crypto verifies', async () => {
    const asked = await gql('agent', ASK, { i: { text: 'Ship it?', format: 'CONFIRM' }, h: 0 });
    expect(asked.askUser.status).toBe('PENDING');
    expect(asked.askUser.receipt).toBeNull();
    expect(asked.askUser.question.receipt).toBeNull();
    const id = asked.askUser.question.id as string;
    await gql('ops', 'mutation($id: ID!) { answer(id: $id, answer: true) { id } }', { id });
    const { question } = await gql('agent', QUESTION, { id });
    const checked = await webCryptoVerify(question.receipt, jwks);
    expect(checked?.header).toEqual({ alg: 'EdDSA', kid: 'k-2026', typ: 'JWT' });
    expect(checked?.payload).toMatchObject({
      iss: 'http://127.0.0.1:4000',
      sub: id,
      jti: `receipt:${id}`,
      question: { format: 'CONFIRM', askedBy: 'agent', textDigest: jcsDigest('Ship it?') },
      outcome: { status: 'ANSWERED', answerDigest: jcsDigest(true), answeredBy: 'ops', via: 'api' },
    });
    // Signed from the record, deterministically: every read gives the same bytes.
    expect((await gql('ops', QUESTION, { id })).question.receipt).toBe(question.receipt);
  });

  it('gives a receipt for a cancellation and for a timeout, with the asker’s AskResult too', async () => {
    const asked = await gql('agent', ASK, { i: { text: 'Cancel me', format: 'TEXT' }, h: 0 });
    const id = asked.askUser.question.id as string;
    await gql('agent', 'mutation($id: ID!) { cancelQuestion(id: $id, reason: "changed my mind") { id } }', {
      id,
    });
    const cancelled = await webCryptoVerify((await gql('agent', QUESTION, { id })).question.receipt, jwks);
    expect(cancelled?.payload.outcome).toMatchObject({ status: 'CANCELLED' });
    expect(JSON.stringify(cancelled?.payload)).not.toContain('changed my mind');

    // The shortest timeout; the held call ends on the timeout itself.
    const timed = await gql('agent', ASK, {
      i: { text: 'Anyone?', format: 'TEXT', timeoutSeconds: 1 },
      h: 30,
    });
    expect(timed.askUser.status).toBe('TIMED_OUT');
    const verified = await webCryptoVerify(timed.askUser.receipt, jwks);
    expect(verified?.payload.outcome).toMatchObject({ status: 'TIMED_OUT' });
    expect(timed.askUser.question.receipt).toBe(timed.askUser.receipt);
  });

  it('never states a sensitive answer, not even by its digest', async () => {
    const asked = await gql('agent', ASK, {
      i: { text: 'Password?', format: 'TEXT', sensitive: true },
      h: 0,
    });
    const id = asked.askUser.question.id as string;
    await gql('ops', 'mutation($id: ID!) { answer(id: $id, answer: "hunter2-secret") { id } }', {
      id,
    });
    const receipt = (await gql('ops', QUESTION, { id })).question.receipt as string;
    const payload = (await webCryptoVerify(receipt, jwks))?.payload;
    expect(payload?.outcome).toMatchObject({ status: 'ANSWERED', answeredBy: 'ops' });
    expect(payload?.outcome).not.toHaveProperty('answerDigest');
    expect(Buffer.from(receipt.split('.')[1] as string, 'base64url').toString()).not.toContain('hunter2');
  });

  describe('verifyReceipt (SDK) and `tai receipts verify`', () => {
    let receipt: string;
    let id: string;
    beforeAll(async () => {
      const asked = await gql('agent', ASK, { i: { text: 'Refund 40 EUR?', format: 'CONFIRM' }, h: 0 });
      id = asked.askUser.question.id;
      await gql('ops', 'mutation($id: ID!) { answer(id: $id, answer: false) { id } }', { id });
      receipt = (await gql('agent', QUESTION, { id })).question.receipt;
    });

    const refusal = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ReceiptVerificationError);
      return (err as ReceiptVerificationError).reason;
    };

    it('accepts the receipt and returns its claims', async () => {
      const claims = await verifyReceipt(receipt, {
        jwks: jwks as never,
        questionId: id,
        issuer: 'http://127.0.0.1:4000',
      });
      expect(claims.outcome).toMatchObject({ status: 'ANSWERED', answerDigest: jcsDigest(false) });
    });

    it('refuses an altered payload, another key, another issuer and another question, naming each', async () => {
      const [h, p, s] = receipt.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      claims.outcome.answerDigest = jcsDigest(true);
      const altered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
      expect(await refusal(verifyReceipt(altered, { jwks: jwks as never }))).toBe('signature');

      const other = await webCryptoKey('k-2026');
      const otherSet = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: other.x, kid: 'k-2026' }] };
      expect(await refusal(verifyReceipt(receipt, { jwks: otherSet as never }))).toBe('signature');
      const unknownKid = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: other.x, kid: 'k-other' }] };
      expect(await refusal(verifyReceipt(receipt, { jwks: unknownKid as never }))).toBe('unknown_key');
      expect(
        await refusal(verifyReceipt(receipt, { jwks: jwks as never, issuer: 'https://elsewhere.example' })),
      ).toBe('issuer');
      expect(await refusal(verifyReceipt(receipt, { jwks: jwks as never, questionId: 'q_other' }))).toBe(
        'question',
      );
      expect(await refusal(verifyReceipt('not.a.receipt', { jwks: jwks as never }))).toBe('malformed');
      // A CONFIRM approves no action: a tool that asks for one is refused.
      const action = { name: 'refund', arguments: { amount: 40 } };
      expect(await refusal(verifyReceipt(receipt, { jwks: jwks as never, action }))).toBe('action');
    });

    it('`tai receipts verify` checks against a saved key set and exits 1 naming what differs', async () => {
      const saved = join(dir, 'published.json');
      writeFileSync(saved, JSON.stringify(jwks));
      const ok = await runCliInProcess(['receipts', 'verify', receipt, '--jwks', saved, '--question', id]);
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
      expect(ok.stdout).toBe(
        `valid: question ${id} ANSWERED by ops at ${JSON.parse(Buffer.from(receipt.split('.')[1] as string, 'base64url').toString()).outcome.at}\n`,
      );

      const bad = await runCliInProcess([
        'receipts',
        'verify',
        receipt,
        '--jwks',
        saved,
        '--question',
        'q_other',
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toBe(`error: RECEIPT_QUESTION: about question ${id}, expected q_other\n`);
    });

    it('`tai receipts verify` fetches the keys from the server it is pointed at', async () => {
      const url = await t.listen();
      // The issuer is the public base URL, not the listener's own address: say which to expect.
      const run = await runCliInProcess([
        '--url',
        url,
        'receipts',
        'verify',
        receipt,
        '--issuer',
        'http://127.0.0.1:4000',
      ]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const wrong = await runCliInProcess(['--url', url, 'receipts', 'verify', receipt]);
      expect(wrong.stderr).toBe(`error: RECEIPT_ISSUER: issued by http://127.0.0.1:4000, expected ${url}\n`);
    });
  });
});

describe('decision receipts across instances and key rotation', () => {
  it('two instances on one Redis with the same keys sign the same bytes; a rotated set still verifies the old', async () => {
    const old = await webCryptoKey('old');
    const next = await webCryptoKey('new');
    const prefix = uniquePrefix();
    const a = await startServer({
      store: 'redis',
      prefix,
      env: { INTERACTIONS_RECEIPT_KEYS_FILE: keyFile('a', [old]) },
    });
    const b = await startServer({
      store: 'redis',
      prefix,
      env: { INTERACTIONS_RECEIPT_KEYS_FILE: keyFile('b', [old]) },
    });
    try {
      const asked = await gqlOn(a)('agent', ASK, { i: { text: 'Rotate?', format: 'TEXT' }, h: 0 });
      const id = asked.askUser.question.id as string;
      await gqlOn(b)('ops', 'mutation($id: ID!) { answer(id: $id, answer: "yes") { id } }', { id });
      const fromA = (await gqlOn(a)('agent', QUESTION, { id })).question.receipt;
      const fromB = (await gqlOn(b)('agent', QUESTION, { id })).question.receipt;
      expect(fromA).toBe(fromB);

      // Rotation: the new key first signs; the old one, still listed, verifies older receipts.
      await b.close();
      const c = await startServer({
        store: 'redis',
        prefix,
        env: { INTERACTIONS_RECEIPT_KEYS_FILE: keyFile('c', [next, old]) },
      });
      try {
        const published = (await c.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
        expect(published.keys.map((k: { kid: string }) => k.kid)).toEqual(['new', 'old']);
        const fromC = (await gqlOn(c)('agent', QUESTION, { id })).question.receipt as string;
        expect((await webCryptoVerify(fromC, published))?.header.kid).toBe('new');
        expect((await webCryptoVerify(fromA, published))?.header.kid).toBe('old');
        // Once the old key is retired, its receipts no longer verify.
        const retired = { keys: published.keys.filter((k: { kid: string }) => k.kid === 'new') };
        await expect(verifyReceipt(fromA, { jwks: retired })).rejects.toMatchObject({
          reason: 'unknown_key',
        });
      } finally {
        await c.close();
      }
    } finally {
      await a.close();
    }
  });
});

describe('`tai receipts keygen`', () => {
  it('prints a key set that the server takes and signs with', async () => {
    const made = await runCliInProcess(['receipts', 'keygen']);
    expect(made.code).toBe(0);
    const set = JSON.parse(made.stdout) as { keys: PrivateJwk[] };
    expect(set.keys).toHaveLength(1);
    expect(set.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    const t = await startServer({
      store: 'memory',
      env: { INTERACTIONS_RECEIPT_KEYS_FILE: keyFile('made', set.keys) },
    });
    try {
      const published = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
      expect(published.keys[0].kid).toBe(set.keys[0]?.kid);
      expect(published.keys[0]).not.toHaveProperty('d');
    } finally {
      await t.close();
    }
  });
});
