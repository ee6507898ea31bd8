// Authentication is the door's, not the handler's: one hook applies the door policy (API.md §6)
// to every REST route by the door it declares, and every 401 says the same thing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAUTHENTICATED_MESSAGE } from '../../src/auth/authenticate.ts';
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
