// OpenID Connect sign-in (API.md §19) against a real provider (oidc-provider on loopback): the
// whole login, the role map and the restricted unmapped person, tampered state, nonce and PKCE
// verifier, a replayed callback, the Origin rule for cookie requests, and logout on one
// instance seen by another (both on the shared Redis).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, uniquePrefix } from '../support/fixtures.ts';
import {
  CookieJar,
  finishSignIn,
  signInVia,
  startOidcProvider,
  type TestProvider,
} from '../support/oidc-provider.ts';
import { startServer, type TestServer } from '../support/server.ts';

const ROLE_MAP = { 'inbox-admins': 'admin', reviewers: 'operator' };
const ACCOUNTS = {
  ada: { name: 'Ada Lovelace', email: 'ada@example.com', roles: ['inbox-admins', 'unrelated'] },
  rita: { email: 'rita@example.com', roles: 'reviewers' },
  uma: { name: 'Uma Unmapped', roles: ['nobody-maps-this'] },
  // A name that tries to break a line, reverse the text, hide characters and inject markup.
  mal: {
    name: `\u0007Mal\r\n\t \u202EOry\u200B <b>x</b>${'y'.repeat(150)}`,
    email: 'mal@example.com',
    roles: 'reviewers',
  },
  // Nothing shown is left of the name: the identity stands in.
  nil: { name: '\u200B\u0000 \u202E\t', roles: 'reviewers' },
};

const VIEWER = '{ viewer { id roles restricted } }';

interface Instance {
  t: TestServer;
  url: string;
}

async function instance(provider: TestProvider, port: number, prefix: string): Promise<Instance> {
  const url = `http://127.0.0.1:${port}`;
  const t = await startServer({
    store: 'redis',
    prefix,
    env: {
      PORT: String(port),
      INTERACTIONS_PUBLIC_BASE_URL: url,
      INTERACTIONS_OIDC_ISSUER: provider.issuer,
      INTERACTIONS_OIDC_CLIENT_ID: provider.clientId,
      INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'TEST_OIDC_SECRET',
      TEST_OIDC_SECRET: provider.clientSecret,
      INTERACTIONS_OIDC_ROLE_MAP: JSON.stringify(ROLE_MAP),
    },
  });
  await t.listen();
  return { t, url };
}

function graphql(
  url: string,
  cookie: string,
  query: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, ...headers },
    body: JSON.stringify({ query }),
  });
}

describe('OIDC sign-in against oidc-provider', () => {
  let provider: TestProvider;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    provider = await startOidcProvider({
      redirectUris: [`http://127.0.0.1:${portA}/auth/callback`, `http://127.0.0.1:${portB}/auth/callback`],
      accounts: ACCOUNTS,
    });
    const prefix = uniquePrefix();
    a = await instance(provider, portA, prefix);
    b = await instance(provider, portB, prefix);
  });
  afterAll(async () => {
    await a?.t.close();
    await b?.t.close();
    await provider?.close();
  });

  async function signedIn(sub: string, on: Instance = a): Promise<{ jar: CookieJar; cookie: string }> {
    const jar = new CookieJar();
    const callback = await signInVia(jar, on.url, sub);
    const done = await finishSignIn(jar, callback);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/');
    const session = jar.get(on.url, 'tai_session');
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return { jar, cookie: `tai_session=${session}` };
  }

  it('signs a mapped person in: session cookie flags, the name, the mapped role', async () => {
    const jar = new CookieJar();
    const callback = await signInVia(jar, a.url, 'ada');
    expect(new URL(callback).searchParams.get('code')).toBeTruthy();
    const done = await finishSignIn(jar, callback);
    const setCookie = done.headers.getSetCookie().find((c) => c.startsWith('tai_session='));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Max-Age=43200/);
    // http:// loopback: no Secure flag (a browser would drop the cookie).
    expect(setCookie).not.toMatch(/Secure/);
    const cookie = `tai_session=${jar.get(a.url, 'tai_session')}`;
    const who = await (await fetch(`${a.url}/auth/session`, { headers: { cookie } })).json();
    expect(who).toEqual({
      signIn: { label: new URL(provider.issuer).host, url: '/auth/login' },
      signedIn: { id: 'oidc:ada', name: 'Ada Lovelace', roles: ['admin'], restricted: false },
    });
    const viewer = await (await graphql(a.url, cookie, VIEWER, { origin: a.url })).json();
    expect(viewer.data.viewer).toEqual({ id: 'oidc:ada', roles: ['admin'], restricted: false });
  });

  it('shows the email when there is no name; a single string claim maps too', async () => {
    const { cookie } = await signedIn('rita');
    const who = await (await fetch(`${a.url}/auth/session`, { headers: { cookie } })).json();
    expect(who.signedIn).toEqual({
      id: 'oidc:rita',
      name: 'rita@example.com',
      roles: ['operator'],
      restricted: false,
    });
  });

  it('cleans the name claim once: no control or format characters, one line, 100 code points', async () => {
    const who = async (sub: string) => {
      const { cookie } = await signedIn(sub);
      return (await (await fetch(`${a.url}/auth/session`, { headers: { cookie } })).json()).signedIn;
    };
    // Markup stays text: whatever renders the name escapes it.
    const name = `Mal Ory <b>x</b>${'y'.repeat(100 - 'Mal Ory <b>x</b>'.length)}`;
    expect([...name]).toHaveLength(100);
    expect(await who('mal')).toEqual({ id: 'oidc:mal', name, roles: ['operator'], restricted: false });
    expect((await who('nil')).name).toBe('oidc:nil');
  });

  it('lets a person with no mapped role in as a restricted operator', async () => {
    const { cookie } = await signedIn('uma');
    const viewer = await (await graphql(a.url, cookie, VIEWER, { origin: a.url })).json();
    expect(viewer.data.viewer).toEqual({ id: 'oidc:uma', roles: ['operator'], restricted: true });
    // Restricted: a question for someone else is absent for them; their own is there.
    const ask = async (audience: string): Promise<string> => {
      const res = await fetch(`${a.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer test-agent-key-0000000001' },
        body: JSON.stringify({
          query: `mutation { askUser(input: {text: "ok?", format: CONFIRM, audience: "${audience}"}, holdSeconds: 0) { question { id } } }`,
        }),
      });
      return (await res.json()).data.askUser.question.id;
    };
    const theirs = await ask('oidc:ada');
    const own = await ask('oidc:uma');
    const seen = async (id: string) =>
      (await (await graphql(a.url, cookie, `{ question(id: "${id}") { id } }`, { origin: a.url })).json())
        .data.question;
    expect(await seen(theirs)).toBeNull();
    expect(await seen(own)).toEqual({ id: own });
  });

  it('an answer by a signed-in person keeps their id and shows their name', async () => {
    const { cookie } = await signedIn('ada');
    const keyed = async (query: string) =>
      (
        await fetch(`${a.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer test-ops-key-000000000003' },
          body: JSON.stringify({ query }),
        })
      ).json();
    const asked = await fetch(`${a.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-agent-key-0000000001' },
      body: JSON.stringify({
        query:
          'mutation { askUser(input: {text: "Ship?", format: CONFIRM}, holdSeconds: 0) { question { id } } }',
      }),
    });
    const id = (await asked.json()).data.askUser.question.id;
    const answer = await graphql(a.url, cookie, `mutation { answer(id: "${id}", answer: true) { id } }`, {
      origin: a.url,
    });
    expect((await answer.json()).errors).toBeUndefined();
    const seen = await keyed(`{ question(id: "${id}") { answeredBy answeredByName } }`);
    expect(seen.data.question).toEqual({ answeredBy: 'oidc:ada', answeredByName: 'Ada Lovelace' });

    // A vote keeps the id and shows the name too.
    const quorum = await fetch(`${a.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-agent-key-0000000001' },
      body: JSON.stringify({
        query:
          'mutation { askUser(input: {text: "Two approvals?", format: CONFIRM, quorum: {approvals: 2}}, holdSeconds: 0) { question { id } } }',
      }),
    });
    const qid = (await quorum.json()).data.askUser.question.id;
    const vote = await graphql(a.url, cookie, `mutation { answer(id: "${qid}", answer: true) { id } }`, {
      origin: a.url,
    });
    expect((await vote.json()).errors).toBeUndefined();
    const votes = await keyed(`{ question(id: "${qid}") { status votes { by byName } } }`);
    expect(votes.data.question).toEqual({
      status: 'PENDING',
      votes: [{ by: 'oidc:ada', byName: 'Ada Lovelace' }],
    });
  });

  it('refuses a tampered state, a callback from another browser and a replayed callback', async () => {
    const jar = new CookieJar();
    const callback = await signInVia(jar, a.url, 'ada');
    const tampered = new URL(callback);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')}x`);
    const bad = await finishSignIn(jar, tampered.href);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('not started in this browser');
    expect(jar.get(a.url, 'tai_session')).toBeUndefined();

    // The genuine callback in a browser that did not start the login (no login cookie).
    const other = await finishSignIn(new CookieJar(), callback);
    expect(other.status).toBe(400);

    // A fresh login, used once, then replayed with the same browser's cookie.
    const jar2 = new CookieJar();
    const callback2 = await signInVia(jar2, a.url, 'ada');
    const state = jar2.get(a.url, 'tai_login') ?? '';
    expect((await finishSignIn(jar2, callback2)).status).toBe(303);
    jar2.set(a.url, 'tai_login', state);
    const replay = await finishSignIn(jar2, callback2);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('expired or was already used');
  });

  /** Rewrites the login the server keeps for `state` (as a tampered or stale one would be). */
  async function tamperLogin(
    state: string,
    change: (login: { codeVerifier: string; nonce: string }) => void,
  ) {
    const key = `login:${createHash('sha256').update(state).digest('hex')}`;
    const people = a.t.server.store.people;
    const login = JSON.parse((await people.take(key, Date.now())) ?? 'null');
    expect(login).not.toBeNull();
    change(login);
    await people.put(key, JSON.stringify(login), Date.now() + 60_000);
  }

  it.each([
    [
      'nonce',
      (l: { nonce: string }) => {
        l.nonce = `${l.nonce}x`;
      },
    ],
    [
      'PKCE verifier',
      (l: { codeVerifier: string }) => {
        l.codeVerifier = `${l.codeVerifier.slice(1)}A`;
      },
    ],
  ] as const)('refuses a sign-in whose %s does not match', async (_what, change) => {
    const jar = new CookieJar();
    const callback = await signInVia(jar, a.url, 'ada');
    await tamperLogin(jar.get(a.url, 'tai_login') ?? '', change as never);
    const res = await finishSignIn(jar, callback);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('could not be verified');
    expect(jar.get(a.url, 'tai_session')).toBeUndefined();
  });

  it('refuses a state-changing cookie request without our Origin (403), lets reads and our Origin through', async () => {
    const { cookie } = await signedIn('ada');
    const mutation = 'mutation { cancelQuestion(id: "00000000-0000-4000-8000-000000000000") { id } }';
    const origins: Record<string, string>[] = [{ origin: 'http://evil.example' }, {}, { origin: 'null' }];
    for (const origin of origins) {
      const res = await graphql(a.url, cookie, mutation, origin);
      expect(res.status).toBe(403);
      expect((await res.json()).errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const answer = await fetch(`${a.url}/api/interactions/00000000-0000-4000-8000-000000000000/answer`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ answer: 'x' }),
    });
    expect(answer.status).toBe(403);
    // A read needs no Origin; a state change from our own origin goes through to the engine.
    const read = await fetch(`${a.url}/graphql?query=${encodeURIComponent(VIEWER)}`, { headers: { cookie } });
    expect((await read.json()).data.viewer.id).toBe('oidc:ada');
    const ours = await (await graphql(a.url, cookie, mutation, { origin: a.url })).json();
    expect(ours.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('an unknown or malformed session cookie is 401; a key still works next to sign-in', async () => {
    for (const cookie of [`tai_session=${'A'.repeat(43)}`, 'tai_session=short']) {
      const res = await graphql(a.url, cookie, VIEWER, { origin: a.url });
      expect(res.status).toBe(401);
    }
    const keyed = await fetch(`${a.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-ops-key-000000000003' },
      body: JSON.stringify({ query: VIEWER }),
    });
    expect((await keyed.json()).data.viewer.id).toBe('ops');
  });

  it('a session opened on one instance works on another; logout on that one ends it on both', async () => {
    const { cookie } = await signedIn('ada', a);
    const onB = await (await graphql(b.url, cookie, VIEWER, { origin: b.url })).json();
    expect(onB.data.viewer.id).toBe('oidc:ada');
    // Logout is state-changing: a foreign Origin is refused and the session lives on.
    const foreign = await fetch(`${b.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await graphql(a.url, cookie, VIEWER, { origin: a.url })).status).toBe(200);
    const out = await fetch(`${b.url}/auth/logout`, { method: 'POST', headers: { cookie, origin: b.url } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^tai_session=; .*Max-Age=0/);
    expect((await graphql(a.url, cookie, VIEWER, { origin: a.url })).status).toBe(401);
    const who = await (await fetch(`${a.url}/auth/session`, { headers: { cookie } })).json();
    expect(who.signedIn).toBeNull();
  });

  it('limits sign-ins per address: at the limit a login starts, one past it is 429', async () => {
    const port = await freePort();
    const c = await startServer({
      store: 'memory',
      env: {
        PORT: String(port),
        INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        INTERACTIONS_RATE_LIMIT_PER_MINUTE: '3',
        INTERACTIONS_OIDC_ISSUER: provider.issuer,
        INTERACTIONS_OIDC_CLIENT_ID: provider.clientId,
        INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'TEST_OIDC_SECRET',
        TEST_OIDC_SECRET: provider.clientSecret,
      },
    });
    try {
      const url = await c.listen();
      const login = () => fetch(`${url}/auth/login`, { redirect: 'manual' });
      for (let i = 0; i < 3; i++) expect((await login()).status).toBe(302);
      const refused = await login();
      expect(refused.status).toBe(429);
      expect((await refused.json()).code).toBe('RATE_LIMITED');
      // The session check is not limited: the inbox asks it at every load.
      expect((await fetch(`${url}/auth/session`)).status).toBe(200);
    } finally {
      await c.close();
    }
  });
});
