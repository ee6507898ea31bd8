// Whatever a caller sends the passkey doors (API.md §23) — any JSON, WebAuthn responses with any
// field wrong (so the WebAuthn library itself reads the junk), any question id and answer, any
// query — as a freshly signed-in person (from the inbox's origin or a foreign page), a key's
// holder or nobody, the answer is 200, 400, 401,
// 403, 404 or 413 with the uniform error body, never a 500; and nothing is answered.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeople } from '../../src/engine/people/people.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const BASE = '/api/interactions/webauthn';
const SIGNED_IN = (session: string) => ({
  cookie: `tai_session=${session}`,
  origin: 'http://127.0.0.1:4000',
});
const POSTS = ['/register/options', '/register/verify', '/approve/options', '/approve'];

const b64url = (s: string) => Buffer.from(s).toString('base64url');
const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.object({ maxDepth: 2 }),
  fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('base64url')),
);
// clientDataJSON as a browser encodes it, with any of its fields wrong.
const clientData = fc
  .record({
    type: fc.oneof(fc.constantFrom('webauthn.create', 'webauthn.get'), junk),
    challenge: fc.oneof(fc.base64String({ maxLength: 44 }), junk),
    origin: fc.oneof(fc.constant('http://127.0.0.1:4000'), junk),
  })
  .map((c) => b64url(JSON.stringify(c)));
// A PublicKeyCredential's JSON (registration or assertion), any part replaced by something else.
const credential = fc
  .tuple(
    fc.record({
      id: fc.base64String({ maxLength: 44 }),
      rawId: fc.base64String({ maxLength: 44 }),
      type: fc.constant('public-key'),
      clientExtensionResults: fc.constant({}),
      response: fc.record({
        clientDataJSON: clientData,
        attestationObject: fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString('base64url')),
        authenticatorData: fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('base64url')),
        signature: fc.uint8Array({ maxLength: 72 }).map((b) => Buffer.from(b).toString('base64url')),
      }),
    }),
    fc.dictionary(fc.constantFrom('id', 'rawId', 'type', 'response', 'clientExtensionResults'), junk, {
      maxKeys: 2,
    }),
  )
  .map(([c, over]) => ({ ...c, ...over }));
const answer = fc.oneof(
  fc.constantFrom(
    { decision: 'APPROVED' },
    { decision: 'REJECTED' },
    { decision: 'APPROVED', arguments: {} },
  ),
  junk,
);

describe('the passkey doors never answer 500', () => {
  let t: TestServer;
  let session: string;
  let questionId: string;
  beforeAll(async () => {
    t = await startServer({ store: 'redis' });
    // A sign-in a moment ago (registration needs one under 5 minutes old).
    session = await createPeople(t.server.store.people).openSession(
      { id: 'oidc:ada', name: 'Ada', roles: ['operator'], restricted: false },
      Date.now() + 3600_000,
    );
    const asked = await t.server.engine.ask(
      { id: 'agent', roles: ['agent'], restricted: false },
      {
        text: 'Wire it?',
        format: 'APPROVAL',
        action: { name: 'payments.wire', arguments: { amount: 7 }, assurance: 'HIGH' },
      },
      { holdSeconds: 0 },
    );
    questionId = asked.question.id;
  });
  afterAll(() => t.close());

  const body = fc.oneof(
    fc.record(
      {
        questionId: fc.oneof(fc.constant('REAL'), fc.string({ maxLength: 12 }), junk),
        answer,
        response: fc.oneof(credential, junk),
      },
      { requiredKeys: [] },
    ),
    fc.json().map((j) => ({ raw: j })),
    fc.string({ maxLength: 200 }).map((s) => ({ raw: s })),
  );
  const caller = fc.constantFrom('session', 'session', 'session-elsewhere', 'agent', 'ops', 'nobody');
  const query = fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 10 }), { maxKeys: 2 });

  it('any body, query and caller: 200, 400, 401, 403, 404 or 413, an error with its code', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...POSTS, '/credentials', '/nope'),
        body,
        caller,
        query,
        async (door, b, who, q) => {
          const payload =
            'raw' in b ? String(b.raw) : JSON.stringify(b.questionId === 'REAL' ? { ...b, questionId } : b);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          // A cookie's request comes from the server's own pages (its Origin), or it is refused.
          if (who === 'session') Object.assign(headers, SIGNED_IN(session));
          else if (who === 'session-elsewhere') headers.cookie = `tai_session=${session}`;
          else if (who !== 'nobody') Object.assign(headers, auth(who));
          const qs = new URLSearchParams(q).toString();
          const r = await t.server.inject({
            method: door === '/credentials' ? 'GET' : 'POST',
            url: `${BASE}${door}${qs ? `?${qs}` : ''}`,
            headers,
            ...(door === '/credentials' ? {} : { payload }),
          });
          expect([200, 400, 401, 403, 404, 413], `${door} ${r.statusCode} ${r.body}`).toContain(r.statusCode);
          if (r.statusCode >= 400)
            expect(r.json()).toMatchObject({ code: expect.any(String), error: expect.any(String) });
        },
      ),
      { numRuns: 300 },
    );
    expect((await t.server.store.get(questionId))!.status).toBe('PENDING');
  });

  it('a body one byte over the door cap is 413; at the cap it is read', async () => {
    const cap = 64 * 1024;
    const headers = { 'content-type': 'application/json', ...SIGNED_IN(session) };
    const padded = (n: number) => {
      const head = JSON.stringify({ response: { id: 'x' }, pad: '' });
      return `${head.slice(0, -2)}${'a'.repeat(n - head.length)}"}`;
    };
    expect(padded(cap)).toHaveLength(cap);
    const at = await t.server.inject({
      method: 'POST',
      url: `${BASE}/register/verify`,
      headers,
      payload: padded(cap),
    });
    expect(at.statusCode).toBe(400);
    const over = await t.server.inject({
      method: 'POST',
      url: `${BASE}/register/verify`,
      headers,
      payload: padded(cap + 1),
    });
    expect(over.statusCode).toBe(413);
  });
});
