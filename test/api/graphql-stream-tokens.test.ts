// graphql-sse single-connection tokens (/graphql/stream, on by default): random, bound to the
// key that reserved them, and at most DEFAULT_STREAM_LIMITS.perKey per key. Switched off
// (INTERACTIONS_GRAPHQL_STREAM=false), the mode reserves nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STREAM_LIMITS } from '../../src/graphql/stream-tokens.ts';
import { auth, startServer, type TestServer, type Who } from '../support/server.ts';

describe('/graphql/stream tokens', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
  });
  afterAll(async () => {
    await t.close();
  });

  const reserve = async (who: Who) => {
    const r = await t.server.inject({ method: 'PUT', url: '/graphql/stream', headers: auth(who) });
    expect(r.statusCode).toBe(201);
    return r.body.trim();
  };
  const subscribe = (who: Who, token: string) =>
    t.server.inject({
      method: 'POST',
      url: '/graphql/stream',
      headers: { ...auth(who), 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
      payload: { query: 'subscription { pendingQuestions { type } }', extensions: { operationId: 'op1' } },
    });

  it('can be switched off: no reservation is made', async () => {
    const off = await startServer({ store: 'memory', env: { INTERACTIONS_GRAPHQL_STREAM: 'false' } });
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

  it('a PUT always reserves a fresh stream, whatever token it carries (a reconnecting client sends its old one)', async () => {
    const live = await reserve('alice');
    for (const carried of [live, '00000000-0000-4000-8000-000000000000']) {
      const r = await t.server.inject({
        method: 'PUT',
        url: '/graphql/stream',
        headers: { ...auth('alice'), 'x-graphql-event-stream-token': carried },
      });
      expect(r.statusCode).toBe(201);
      expect(r.body.trim()).not.toBe(carried);
    }
    // The live reservation is untouched by the PUTs that carried it.
    expect((await subscribe('alice', live)).statusCode).toBe(202);
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

  it(`holds ${DEFAULT_STREAM_LIMITS.perKey} streams per key: one more evicts the oldest unopened; with all open it is refused`, async () => {
    const base = await t.listen();
    const cap = DEFAULT_STREAM_LIMITS.perKey;
    const tokens: string[] = [];
    for (let i = 0; i < cap; i++) tokens.push(await reserve('ops'));
    for (const token of tokens) expect((await subscribe('ops', token)).statusCode).toBe(202);
    const past = await reserve('ops');
    // The oldest is forgotten (here and in the library); the rest and the new one stay usable.
    expect((await subscribe('ops', tokens[0]!)).statusCode).toBe(404);
    for (const token of [...tokens.slice(1), past]) {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql/stream',
        headers: {
          ...auth('ops'),
          'content-type': 'application/json',
          'x-graphql-event-stream-token': token,
        },
        payload: { query: '{ viewer { id } }', extensions: { operationId: 'kept' } },
      });
      expect(r.statusCode).toBe(202);
    }
    // Every held stream opened: nothing can be evicted, so the next reservation is refused.
    const streams = new AbortController();
    try {
      for (const token of [...tokens.slice(1), past]) {
        const opened = await fetch(`${base}/graphql/stream`, {
          headers: { ...auth('ops'), accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
          signal: streams.signal,
        });
        expect(opened.status).toBe(200);
      }
      const refused = await t.server.inject({ method: 'PUT', url: '/graphql/stream', headers: auth('ops') });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({
        errors: [
          { message: `A key holds at most ${cap} streams at once`, extensions: { code: 'LIMIT_EXCEEDED' } },
        ],
      });
      // Another key is not affected.
      await reserve('agent');
    } finally {
      streams.abort();
    }
  });
});
