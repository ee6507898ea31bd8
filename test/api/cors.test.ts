// Cross-site browsers: no CORS unless INTERACTIONS_CORS_ORIGINS allows the origin.
import { afterEach, describe, expect, it } from 'vitest';
import { auth, startServer, type TestServer } from '../support/server.ts';

const preflight = (t: TestServer, origin: string) =>
  t.server.inject({
    method: 'OPTIONS',
    url: '/graphql',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization',
    },
  });

describe('CORS on /graphql', () => {
  let t: TestServer;
  afterEach(async () => {
    await t.close();
  });

  it('by default grants no other origin', async () => {
    t = await startServer({ store: 'memory' });
    const r = await preflight(t, 'https://evil.example');
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    const post = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('ops'), origin: 'https://evil.example', 'content-type': 'application/json' },
      payload: { query: '{ viewer { id } }' },
    });
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
    expect(post.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('grants listed origins, without credentials', async () => {
    t = await startServer({ store: 'memory', env: { INTERACTIONS_CORS_ORIGINS: 'https://app.example' } });
    const ok = await preflight(t, 'https://app.example');
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
    const other = await preflight(t, 'https://evil.example');
    expect(other.headers['access-control-allow-origin']).not.toBe('https://evil.example');
  });
});
