// The short-link door (`/l/{token}`) is public: whatever path or method a stranger sends under
// it, the answer is the callback doors' uniform 404 (for every method), never a
// 500 and never a redirect to anything but a link the server saved. Both stores.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

describe.each(['memory', 'redis'] as const)('the short-link door on the %s store', (store) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store, env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  afterAll(() => t.close());

  const segment = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    // `.` and `..` are path steps the URL resolves before any route: not this door's.
    fc
      .string({ maxLength: 80 })
      .map((s) => encodeURIComponent(s))
      .filter((s) => !/^\.{1,2}$/.test(s)),
    fc.constantFrom('%ff', '%00', '', 'A'.repeat(4000)),
  );

  it('never answers 500 nor redirects for a token it did not mint', async () => {
    const unknown = await t.server.inject({ method: 'GET', url: `/l/${'A'.repeat(43)}` });
    expect(unknown.statusCode).toBe(404);
    await fc.assert(
      fc.asyncProperty(
        segment,
        fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE'),
        fc.option(segment, { nil: undefined }),
        async (token, method, tail) => {
          const url = `/l/${token}${tail === undefined ? '' : `/${tail}`}`;
          const res = await t.server.inject({ method: method as 'GET', url });
          expect(res.statusCode, `${method} ${url}`).toBe(404);
          expect(res.headers.location).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  });
});
