// The sign-in doors are public (API.md §19): whatever query and cookies reach GET /auth/callback
// or POST /auth/logout, the answer is never a 500 and never opens a session. None of these
// requests gets as far as the identity provider (the state check comes first), so the issuer
// here is a loopback address nobody listens on.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

let t: TestServer;
let url: string;

beforeAll(async () => {
  t = await startServer({
    store: 'memory',
    env: {
      INTERACTIONS_OIDC_ISSUER: 'http://127.0.0.1:9/',
      INTERACTIONS_OIDC_CLIENT_ID: 'tai',
      INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'TEST_OIDC_SECRET',
      TEST_OIDC_SECRET: 'never-used-by-these-requests',
      INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  url = await t.listen();
});
afterAll(async () => {
  await t?.close();
});

const token = fc.oneof(fc.string({ maxLength: 60 }), fc.stringMatching(/^[A-Za-z0-9_-]{0,64}$/));
const cookiePart = fc.tuple(fc.constantFrom('tai_login', 'tai_session', 'other'), token);

/** A cookie header as a browser (or anyone) might send it; values URI-encoded to stay a valid header. */
const cookieHeader = fc
  .array(cookiePart, { maxLength: 3 })
  .map((parts) => parts.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; '));

describe('the sign-in doors under random requests (property)', () => {
  it('GET /auth/callback: never a 500 and never a session cookie, with or without a matching login cookie', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ state: token, code: token, error: token, iss: token }, { requiredKeys: [] }),
        cookieHeader,
        fc.boolean(),
        async (query, cookie, stateInCookie) => {
          const q = new URLSearchParams(query as Record<string, string>);
          const cookies =
            stateInCookie && query.state !== undefined
              ? `tai_login=${encodeURIComponent(query.state)}`
              : cookie;
          const res = await fetch(`${url}/auth/callback?${q}`, {
            headers: { cookie: cookies },
            redirect: 'manual',
          });
          await res.arrayBuffer();
          expect(res.status).toBeLessThan(500);
          expect(
            res.headers.getSetCookie().some((c) => c.startsWith('tai_session=') && !c.includes('Max-Age=0')),
          ).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('POST /auth/logout: never a 500, whatever cookie and body it gets', async () => {
    await fc.assert(
      fc.asyncProperty(cookieHeader, fc.string({ maxLength: 200 }), async (cookie, body) => {
        const res = await fetch(`${url}/auth/logout`, {
          method: 'POST',
          headers: { cookie, origin: url, 'content-type': 'text/plain' },
          body,
          redirect: 'manual',
        });
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });
});
