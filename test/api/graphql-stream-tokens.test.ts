// graphql-sse single-connection tokens (the opt-in /graphql/stream mode): random, and bound to
// the key that reserved them. Off by default, the mode reserves nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startServer, type TestServer } from '../support/server.ts';

describe('/graphql/stream tokens', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory', env: { INTERACTIONS_GRAPHQL_STREAM: 'true' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const reserve = async (who: 'alice' | 'bob') => {
    const r = await t.server.inject({ method: 'PUT', url: '/graphql/stream', headers: auth(who) });
    expect(r.statusCode).toBe(201);
    return r.body.trim();
  };
  const subscribe = (who: 'alice' | 'bob', token: string) =>
    t.server.inject({
      method: 'POST',
      url: '/graphql/stream',
      headers: { ...auth(who), 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
      payload: { query: 'subscription { pendingQuestions { type } }', extensions: { operationId: 'op1' } },
    });

  it('is off by default: no reservation is made', async () => {
    const off = await startServer({ store: 'memory' });
    try {
      const r = await off.server.inject({ method: 'PUT', url: '/graphql/stream', headers: auth('alice') });
      expect(r.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('mints a fresh UUID per reservation', async () => {
    const a = await reserve('alice');
    const b = await reserve('alice');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
  });

  it("refuses another key's token as an unknown stream", async () => {
    const token = await reserve('alice');
    const stolen = await subscribe('bob', token);
    expect(stolen.statusCode).toBe(404);
    const made = await subscribe('bob', await reserve('bob'));
    // bob's own reservation is accepted (the stream is not open yet: graphql-sse says so)
    expect(made.statusCode).not.toBe(404);
  });

  it('answers a syntax error or a document over a limit with 400 BAD_USER_INPUT, not a 500', async () => {
    const token = await reserve('alice');
    const documents = ['{ viewer {', `{${'a{'.repeat(5000)}b${'}'.repeat(5000)}}`];
    for (const [i, query] of documents.entries()) {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql/stream',
        headers: {
          ...auth('alice'),
          'content-type': 'application/json',
          'x-graphql-event-stream-token': token,
        },
        payload: { query, extensions: { operationId: `bad${i}` } },
      });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    }
  });
});
