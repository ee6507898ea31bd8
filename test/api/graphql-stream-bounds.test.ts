// /graphql/stream (graphql-sse single-connection mode) is bounded: an unopened reservation expires and is gone from the library too (the operations queued
// on it end), and an operation whose stream falls too far behind its reader ends, so the
// client subscribes again. Short limits here (the defaults are in DEFAULT_STREAM_LIMITS); the
// per-key cap is tested at its default in graphql-stream-tokens.test.ts.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from '../../src/graphql/stream-tokens.ts';
import { createGraphQLServer } from '../../src/graphql/yoga.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { AGENT, type EngineSet, startEngines } from '../support/engines.ts';
import { auth, PRINCIPALS, type Who } from '../support/server.ts';

const LIMITS: StreamLimits = { maxBehind: 20, perKey: 3, total: 4, reservationTtlMs: 3_000 };
const FEED = 'subscription { pendingQuestions { type more questions { id } } }';
const RESOLVED = 'subscription ($id: ID!) { questionResolved(id: $id) { status } }';

/** Polls a cheap in-process condition (no I/O); fails if it never holds. */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface SseMessage {
  event: string;
  data: { id: string; payload?: { data?: Record<string, unknown>; errors?: unknown[] } };
}

/** An open event stream and its messages as they arrive. */
async function openStream(base: string, token: string, signal: AbortSignal, who: Who = 'alice') {
  const res = await fetch(`${base}/graphql/stream`, {
    headers: { ...auth(who), accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
    signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const seen: SseMessage[] = [];
  return {
    /** Reads until `match` holds for a message; returns every message so far. */
    async until(match: (m: SseMessage) => boolean): Promise<SseMessage[]> {
      while (!seen.some(match)) {
        const r = await reader.read();
        if (r.done) throw new Error('the stream ended');
        text += r.value;
        let cut = text.indexOf('\n\n');
        while (cut >= 0) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) seen.push({ event, data: JSON.parse(data) });
          cut = text.indexOf('\n\n');
        }
      }
      return seen;
    },
  };
}

describe('/graphql/stream bounds', () => {
  let set: EngineSet;
  let app: Awaited<ReturnType<typeof createHttpApp>>;
  let base: string;
  /** Ends the test's open streams. */
  const aborts = new AbortController();
  /** The stream the "falls behind" test leaves open. */
  let behindToken = '';

  beforeAll(async () => {
    set = await startEngines('memory');
    const authenticator = createAuthenticator({
      accessControl: true,
      policy: DEFAULT_DOOR_POLICY,
      keyring: createKeyring(parsePrincipals(PRINCIPALS)),
    });
    const logger = pino({ level: 'silent' });
    const yoga = createGraphQLServer({
      engine: set.engines[0]!,
      authenticator,
      logger,
      singleConnectionStream: true,
      streamLimits: LIMITS,
    });
    app = await createHttpApp({
      engine: set.engines[0]!,
      auth: authenticator,
      yoga,
      logger,
      maxBodyBytes: 65_536,
      rateLimit: { perMinute: 120, redis: null, prefix: 'unused:' },
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    aborts.abort();
    await app.close();
    await set.close();
  });

  const reserve = async (who: Who = 'alice') => {
    const r = await fetch(`${base}/graphql/stream`, { method: 'PUT', headers: auth(who) });
    return { status: r.status, token: (await r.text()).trim() };
  };
  const post = async (
    token: string,
    operationId: string,
    query: string,
    variables?: object,
    who: Who = 'alice',
  ) => {
    const r = await fetch(`${base}/graphql/stream`, {
      method: 'POST',
      headers: {
        ...auth(who),
        'content-type': 'application/json',
        'x-graphql-event-stream-token': token,
      },
      body: JSON.stringify({ query, variables, extensions: { operationId } }),
    });
    return { status: r.status, body: await r.text() };
  };
  const ask = async (text: string) => {
    const r = await set.engines[0]!.ask(AGENT, { text, audience: 'alice' }, { holdSeconds: 0 });
    expect(r.status).toBe('PENDING');
    return r.question.id;
  };

  it('the defaults are the documented ones', () => {
    expect(DEFAULT_STREAM_LIMITS).toEqual({
      maxBehind: 1_000,
      perKey: 8,
      total: 10_000,
      reservationTtlMs: 30_000,
    });
  });

  it('an unopened reservation expires: its operations end and the token is unknown', async () => {
    const id = await ask('expiry');
    const { status, token } = await reserve();
    expect(status).toBe(201);
    const engine = set.engines[0]!;
    const waiters = engine.waiterCount();
    expect((await post(token, 'wait', RESOLVED, { id })).status).toBe(202);
    await until(() => engine.waiterCount() === waiters + 1, 'the operation waits');
    // The library ends the operation only when it lets go of the stream: the waiter goes.
    await until(() => engine.waiterCount() === waiters, 'the expired stream’s operation ended');
    expect((await post(token, 'again', FEED)).status).toBe(404);
    const opened = await fetch(`${base}/graphql/stream`, {
      headers: { ...auth('alice'), accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
    });
    expect(opened.status).toBe(404);
    await opened.arrayBuffer();
  });

  it('an operation whose stream falls behind its reader ends; the client subscribes again', async () => {
    const extra = LIMITS.maxBehind + 5;
    const { status, token } = await reserve();
    expect(status).toBe(201);
    // Never opened yet: nothing is written, so the feed's events pile up to the bound.
    expect((await post(token, 'feed', FEED)).status).toBe(202);
    const ids: string[] = [];
    for (let i = 0; i < extra; i++) ids.push(await ask(`behind ${i}`));
    // At the bound, new operations are refused until the reader catches up.
    const refused = await post(token, 'more', FEED);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({
      errors: [
        { message: expect.stringMatching(/20 events behind/), extensions: { code: 'LIMIT_EXCEEDED' } },
      ],
    });
    behindToken = token;
    const stream = await openStream(base, token, aborts.signal);
    const seen = await stream.until((m) => m.event === 'complete' && m.data.id === 'feed');
    const nexts = seen.filter((m) => m.event === 'next' && m.data.id === 'feed');
    expect(nexts).toHaveLength(LIMITS.maxBehind);
    expect(nexts[0]!.data.payload!.data!.pendingQuestions).toMatchObject({ type: 'SNAPSHOT' });
    // Caught up: a new subscription is accepted; its SNAPSHOT and the backlog parts after it
    // (sent while `more` is true) hold everything.
    expect((await post(token, 'feed2', FEED)).status).toBe(202);
    type Part = { type: string; more: boolean; questions: { id: string }[] };
    const partOf = (m: SseMessage) => m.data.payload!.data!.pendingQuestions as Part;
    const again = await stream.until(
      (m) => m.event === 'next' && m.data.id === 'feed2' && partOf(m).more === false,
    );
    const parts = again.filter((m) => m.event === 'next' && m.data.id === 'feed2').map(partOf);
    expect(parts[0]!.type).toBe('SNAPSHOT');
    expect(parts.flatMap((p) => p.questions.map((q) => q.id))).toEqual(expect.arrayContaining(ids));
  });

  // Last: it leaves every stream slot open until its streams are aborted.
  it(`holds ${LIMITS.total} streams across keys: one more evicts the oldest unopened; with all open it is refused`, async () => {
    // The previous test's stream is closed and forgotten first: its token turns from 409
    // (already open) to 404.
    aborts.abort();
    const start = Date.now();
    for (;;) {
      const r = await fetch(`${base}/graphql/stream`, {
        headers: {
          ...auth('alice'),
          accept: 'text/event-stream',
          'x-graphql-event-stream-token': behindToken,
        },
      });
      await r.arrayBuffer();
      if (r.status === 404) break;
      expect(r.status).toBe(409);
      expect(Date.now() - start).toBeLessThan(10_000);
    }
    const held: [Who, string][] = [];
    for (const who of ['bob', 'bob', 'bob', 'agent'] as const) {
      const r = await reserve(who);
      expect(r.status).toBe(201);
      held.push([who, r.token]);
    }
    for (const [who, token] of held)
      expect((await post(token, 'at-limit', '{ viewer { id } }', undefined, who)).status).toBe(202);
    const past = await reserve('agent2');
    expect(past.status).toBe(201);
    // The oldest unopened of any key is forgotten; the others and the new one stay.
    expect((await post(held[0]![1], 'evicted', '{ viewer { id } }', undefined, 'bob')).status).toBe(404);
    const open: [Who, string][] = [...held.slice(1), ['agent2', past.token]];
    for (const [who, token] of open)
      expect((await post(token, 'kept', '{ viewer { id } }', undefined, who)).status).toBe(202);
    const streams = new AbortController();
    try {
      for (const [who, token] of open) await openStream(base, token, streams.signal, who);
      const refused = await reserve('admin');
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.token)).toMatchObject({
        errors: [{ extensions: { code: 'LIMIT_EXCEEDED' } }],
      });
    } finally {
      streams.abort();
    }
  });
});
