// GraphiQL through the real server: on by default when bound to loopback, off by default
// otherwise (a browser's GET /graphql then needs a key like any request), INTERACTIONS_GRAPHIQL
// decides either way. Its page loads nothing but files from this origin, under a CSP without
// inline scripts; the files are served with an ETag. (test/e2e/graphiql.test.ts runs it in
// Chromium with the network cut off.)
import { describe, expect, it } from 'vitest';
import { startServer } from '../support/server.ts';

const BROWSER = { accept: 'text/html' };

describe('GraphiQL', () => {
  it('is off by default when bound to a non-loopback address, and on request there', async () => {
    const off = await startServer({ store: 'memory', env: { HOST: '0.0.0.0' } });
    try {
      const r = await off.server.inject({ method: 'GET', url: '/graphql', headers: BROWSER });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
      // Its files are not served either: the uniform 404.
      expect((await off.server.inject({ method: 'GET', url: '/graphiql/boot.js' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
    const on = await startServer({
      store: 'memory',
      env: { HOST: '0.0.0.0', INTERACTIONS_GRAPHIQL: 'true' },
    });
    try {
      const r = await on.server.inject({ method: 'GET', url: '/graphql', headers: BROWSER });
      expect(r.statusCode).toBe(200);
    } finally {
      await on.close();
    }
  });

  it('is on by default on loopback, off with INTERACTIONS_GRAPHIQL=false', async () => {
    const off = await startServer({ store: 'memory', env: { INTERACTIONS_GRAPHIQL: 'false' } });
    try {
      const r = await off.server.inject({ method: 'GET', url: '/graphql', headers: BROWSER });
      expect(r.statusCode).toBe(401);
    } finally {
      await off.close();
    }
  });

  it('serves a page without a key that loads only its own files, under a CSP without inline script', async () => {
    const t = await startServer({ store: 'memory' });
    try {
      const r = await t.server.inject({ method: 'GET', url: '/graphql', headers: BROWSER });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toContain('text/html');
      expect(r.body).toContain('<title>Interactions GraphQL</title>');
      const csp = String(r.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|https?:)/);
      expect(csp).toContain("frame-ancestors 'none'");
      // Every script is a file of this origin; none is inline; nothing names another host.
      const scripts = [...r.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.map((m) => m[1]?.trim())).toEqual([
        'src="/graphiql/graphiql.js"',
        'src="/graphiql/boot.js"',
      ]);
      expect(scripts.every((m) => m[2] === '')).toBe(true);
      expect(r.body).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);

      for (const [file, type] of [
        ['graphiql.js', 'text/javascript'],
        ['graphiql.css', 'text/css'],
        ['editor.worker.js', 'text/javascript'],
        ['json.worker.js', 'text/javascript'],
        ['graphql.worker.js', 'text/javascript'],
        ['boot.js', 'text/javascript'],
        ['favicon.ico', 'image/x-icon'],
      ] as const) {
        const a = await t.server.inject({ method: 'GET', url: `/graphiql/${file}` });
        expect(a.statusCode, file).toBe(200);
        expect(a.headers['content-type'], file).toContain(type);
        expect(a.rawPayload.length, file).toBeGreaterThan(100);
        const again = await t.server.inject({
          method: 'GET',
          url: `/graphiql/${file}`,
          headers: { 'if-none-match': String(a.headers.etag) },
        });
        expect(again.statusCode, file).toBe(304);
      }
      expect((await t.server.inject({ method: 'GET', url: '/graphiql/index.js' })).statusCode).toBe(404);
      expect((await t.server.inject({ method: 'GET', url: '/graphiql/..%2Fpackage.json' })).statusCode).toBe(
        404,
      );
    } finally {
      await t.close();
    }
  });
});
