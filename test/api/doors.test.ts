// Authentication is the door's, not the handler's: one hook applies the door policy (API.md §6)
// to every REST route by the door it declares, and every 401 says the same thing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator, UNAUTHENTICATED_MESSAGE } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY, parseDoorPolicy } from '../../src/auth/door-policy.ts';
import { declareScopeDoor, useDoorAuth } from '../../src/http/door-auth.ts';
import { handleError } from '../../src/http/errors.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const REFUSED = { error: UNAUTHENTICATED_MESSAGE, code: 'UNAUTHENTICATED' };
const KEYED_DOORS = [
  { method: 'GET', url: '/api/interactions/stream' },
  { method: 'POST', url: '/api/interactions/some-id/answer', payload: '{"answer":1}' },
] as const;

describe('the door hook, default policy', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(KEYED_DOORS)('$method $url refuses a missing or unknown key with the one 401', async (door) => {
    for (const headers of [{}, { authorization: 'Bearer not-a-known-key-000000' }]) {
      const r = await t.server.inject({
        ...door,
        headers: { ...headers, 'content-type': 'application/json' },
      });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toEqual(REFUSED);
    }
  });

  it('the 401 of GraphQL says the same', async () => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ viewer { id } }' },
    });
    expect(r.statusCode).toBe(401);
    expect(r.json().errors[0].message).toBe(UNAUTHENTICATED_MESSAGE);
  });

  it('public doors take no key, and a known key still counts on them', async () => {
    expect((await t.server.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await t.server.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    const page = await t.server.inject({
      method: 'GET',
      url: `/api/interactions/callback/${'A'.repeat(43)}`,
    });
    expect(page.statusCode).toBe(404);
    const answer = await t.server.inject({
      method: 'POST',
      url: '/api/interactions/missing-id/answer',
      headers: { ...auth('ops'), 'content-type': 'application/json' },
      payload: '{"answer":1}',
    });
    expect(answer.json().code).toBe('NOT_FOUND');
  });
});

describe('the door hook follows the policy file', () => {
  let t: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'doors-'));
    const file = path.join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify({ doors: { answer: 'public', inbox: 'authenticated' } }));
    t = await startServer({ store: 'memory', env: { INTERACTIONS_ACCESS_POLICY_FILE: file } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a door made public lets an anonymous caller reach the route, with no roles', async () => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/api/interactions/some-id/answer',
      headers: { 'content-type': 'application/json' },
      payload: '{"answer":1}',
    });
    expect(r.statusCode).not.toBe(401);
    expect(['FORBIDDEN', 'NOT_FOUND']).toContain(r.json().code);
  });

  it('a door made authenticated refuses every route of it, static files included', async () => {
    for (const [method, url] of [
      ['GET', '/'],
      ['HEAD', '/'],
      ['GET', '/index.html'],
      ['GET', '/assets/anything.js'],
      ['HEAD', '/assets/anything.js'],
    ] as const) {
      const r = await t.server.inject({ method, url });
      expect(r.statusCode, `${method} ${url}`).toBe(401);
      if (method === 'GET') expect(r.json()).toEqual(REFUSED);
    }
    const keyed = await t.server.inject({ method: 'GET', url: '/assets/anything.js', headers: auth('ops') });
    expect(keyed.statusCode).toBe(404);
  });

  it('the stream stays keyed', async () => {
    const r = await t.server.inject({ method: 'GET', url: '/api/interactions/stream' });
    expect([r.statusCode, r.json()]).toEqual([401, REFUSED]);
  });
});

describe('every route declares its door', () => {
  const keyring = createKeyring(
    parsePrincipals([{ id: 'ops', key: 'doors-test-key-00000001', roles: ['operator'] }]),
  );
  const authenticator = createAuthenticator({ accessControl: true, keyring, policy: DEFAULT_DOOR_POLICY });

  function appWith(): FastifyInstance {
    const app = Fastify();
    useDoorAuth(app, authenticator);
    return app;
  }

  it('a route registered without a door fails start-up with a message naming it', async () => {
    const app = appWith();
    // As createHttpApp registers its routes: one plugin per door.
    app.register(async (scope) => {
      scope.get('/health', { config: { door: 'health' } }, async () => 'ok');
      scope.post('/api/forgotten', async () => 'open');
    });
    await expect(app.ready()).rejects.toThrow(/route POST \/api\/forgotten declares no door/);
    await app.close();
    // A door that does not exist is refused the same way (a typo would otherwise be open).
    const typo = appWith();
    typo.register(async (scope) => {
      scope.get('/typo', { config: { door: 'answr' as never } }, async () => 'open');
    });
    await expect(typo.ready()).rejects.toThrow(/route GET \/typo declares an unknown door "answr"/);
    await typo.close();
    // On the root instance itself, the registration throws at once.
    const root = appWith();
    expect(() => root.get('/forgotten', async () => 'open')).toThrow(
      /route GET \/forgotten declares no door/,
    );
    await root.close();
  });

  it('a plugin may declare the door of its scope, and only of its scope', async () => {
    const declared = appWith();
    declared.register(async (scope) => {
      declareScopeDoor(scope, 'inbox');
      scope.get('/files/:name', async () => 'a file');
    });
    // The declaration stays in its scope: a sibling plugin's route still needs its own.
    declared.register(async (scope) => {
      scope.get('/elsewhere', async () => 'open');
    });
    await expect(declared.ready()).rejects.toThrow(/route GET \/elsewhere declares no door/);
    await declared.close();
  });

  it('a declared door is applied: the scope door on GET and the HEAD route made for it', async () => {
    const policy = parseDoorPolicy({ doors: { inbox: 'authenticated' } });
    const app = Fastify();
    useDoorAuth(app, createAuthenticator({ accessControl: true, keyring, policy }));
    app.setErrorHandler((err, req, reply) => handleError(err, req, reply, pino({ level: 'silent' })));
    await app.register(async (scope) => {
      declareScopeDoor(scope, 'inbox');
      scope.get('/files/:name', async () => 'a file');
    });
    await app.ready();
    for (const method of ['GET', 'HEAD'] as const) {
      expect((await app.inject({ method, url: '/files/a' })).statusCode, method).toBe(401);
    }
    const keyed = await app.inject({ url: '/files/a', headers: { 'x-api-key': 'doors-test-key-00000001' } });
    expect([keyed.statusCode, keyed.body]).toEqual([200, 'a file']);
    await app.close();
  });

  it('the whole server starts: every route of every module declares one', async () => {
    // Every module on (the default), GraphiQL's files, /metrics and the sign-in doors too. The
    // identity provider is never reached: discovery happens at the first login.
    const t = await startServer({
      store: 'memory',
      env: {
        INTERACTIONS_GRAPHIQL: 'true',
        INTERACTIONS_OIDC_ISSUER: 'https://idp.invalid',
        INTERACTIONS_OIDC_CLIENT_ID: 'tai',
        INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'DOORS_TEST_OIDC_SECRET',
        DOORS_TEST_OIDC_SECRET: 'not-a-real-secret-000000',
      },
      plugins: { metrics: true },
    });
    try {
      const session = await t.server.inject({ method: 'GET', url: '/auth/session' });
      expect([session.statusCode, session.json().signedIn]).toEqual([200, null]);
      expect((await t.server.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
