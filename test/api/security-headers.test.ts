// Helmet's headers on every door, including the answers the server gives before any route runs
// (the 404s, a refused key). They are worked out once at start (src/http/security-headers.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmetHeaders } from '../../src/http/security-headers.ts';
import { startServer, type TestServer } from '../support/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ store: 'memory' });
});
afterAll(async () => {
  await t.close();
});

describe('security headers', () => {
  it('are helmet defaults without CSP, computed once', async () => {
    const h = await helmetHeaders();
    expect(h).toMatchObject({
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
    });
    expect(Object.keys(h)).not.toContain('content-security-policy');
    expect(Object.keys(h)).not.toContain('content-type');
  });

  it('are on every response, and the callback doors override what they set stricter', async () => {
    const h = await helmetHeaders();
    const responses = await Promise.all([
      t.server.inject({ method: 'GET', url: '/health' }),
      t.server.inject({ method: 'GET', url: '/no/such/path' }),
      t.server.inject({ method: 'POST', url: '/graphql', payload: { query: '{ __typename }' } }),
      t.server.inject({ method: 'POST', url: `/api/interactions/callback/${'A'.repeat(43)}` }),
    ]);
    for (const [i, r] of responses.entries()) {
      for (const [name, value] of Object.entries(h)) {
        // The callback door's own X-Frame-Options (DENY) replaces helmet's.
        if (i === 3 && name === 'x-frame-options') continue;
        expect(r.headers[name], name).toBe(value);
      }
    }
    expect(responses[3]!.statusCode).toBe(404);
    expect(responses[3]!.headers['x-frame-options']).toBe('DENY');
  });
});
