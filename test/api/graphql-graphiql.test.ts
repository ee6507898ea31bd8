// GraphiQL through the real server: off by default (a browser's GET /graphql then needs a key
// like any request); INTERACTIONS_GRAPHIQL=true serves the page, which holds no data.
import { describe, expect, it } from 'vitest';
import { startServer } from '../support/server.ts';

const BROWSER = { accept: 'text/html' };

describe('GraphiQL', () => {
  it('is off by default', async () => {
    const t = await startServer({ store: 'memory' });
    try {
      const r = await t.server.inject({ method: 'GET', url: '/graphql', headers: BROWSER });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    } finally {
      await t.close();
    }
  });

  it('is served without a key when INTERACTIONS_GRAPHIQL=true', async () => {
    const t = await startServer({ store: 'memory', env: { INTERACTIONS_GRAPHIQL: 'true' } });
    try {
      const r = await t.server.inject({ method: 'GET', url: '/graphql', headers: BROWSER });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toContain('text/html');
      expect(r.body).toContain('Interactions GraphQL');
    } finally {
      await t.close();
    }
  });
});
