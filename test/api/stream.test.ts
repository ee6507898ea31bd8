// GET /api/interactions/stream over real sockets (the whole server in process, listening on a
// loopback port), on both stores: headers, backlog replay then interaction.ready, live frames,
// audiences, 401, keepalive comments, and the feed ending with the connection.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { Interactions } from '../../src/engine/types.ts';
import { createGraphQLServer } from '../../src/graphql/yoga.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { AGENT, ALICE, type EngineSet, OPS, startEngines } from '../support/engines.ts';
import { httpRequest, openSse, type SseReader } from '../support/processes.ts';
import { auth, PRINCIPALS, startServer, type TestServer, type Who } from '../support/server.ts';

interface Frame {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: frame data is checked field by field.
  data: any;
}

async function frame(sse: SseReader): Promise<Frame> {
  const f = await sse.nextEvent();
  if (f === null) throw new Error('the stream ended');
  return { event: f.event, data: JSON.parse(f.data) };
}

/** Frames up to and including interaction.ready: the replayed backlog and the ready frame. */
async function backlog(sse: SseReader): Promise<{ adds: Frame[]; ready: Frame }> {
  const adds: Frame[] = [];
  for (;;) {
    const f = await frame(sse);
    if (f.event === 'interaction.ready') return { adds, ready: f };
    expect(f.event).toBe('interaction.add');
    adds.push(f);
  }
}

/** Polls a cheap in-process condition (no I/O); fails if it never holds. */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Counts the feeds currently watching the engine (wraps the real method; calls through). */
function countWatchers(engine: Interactions): { active(): number } {
  let active = 0;
  const real = engine.watch.bind(engine);
  engine.watch = (p, listener) => {
    active++;
    const stop = real(p, listener);
    let stopped = false;
    return () => {
      if (!stopped) {
        stopped = true;
        active--;
      }
      stop();
    };
  };
  return { active: () => active };
}

for (const store of ['memory', 'redis'] as const) {
  describe(`GET /api/interactions/stream (${store})`, () => {
    let t: TestServer;
    let url: string;
    const open: SseReader[] = [];

    beforeEach(async () => {
      t = await startServer({ store, env: { INTERACTIONS_REAPER_INTERVAL_MS: '50' } });
      url = await t.listen();
    });
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close();
      await t.close();
    });

    async function stream(who: Who | null = 'ops') {
      const r = await openSse(`${url}/api/interactions/stream`, { headers: who ? auth(who) : {} });
      open.push(r.sse);
      return r;
    }

    const ask = (input: Record<string, unknown>, p: Principal = AGENT) =>
      t.server.engine.ask(p, { text: 'Proceed?', ...input }, { holdSeconds: 0 }).then((r) => r.question);

    it('answers with text/event-stream, no caching and no proxy buffering', async () => {
      const { res, sse } = await stream();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream\b/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-accel-buffering')).toBe('no');
      expect((await backlog(sse)).ready.data).toEqual({ pending: 0 });
    });

    it('replays the pending backlog oldest first, then interaction.ready with the count', async () => {
      const asked = [];
      for (let i = 0; i < 5; i++) asked.push(await ask({ text: `Backlog ${i}` }));
      const done = await ask({ text: 'Answered already', format: 'CONFIRM' });
      await t.server.engine.answer(OPS, done.id, true);
      const { sse } = await stream();
      const { adds, ready } = await backlog(sse);
      const expected = (await t.server.engine.pending(OPS)).map((q) => q.id);
      expect(adds.map((f) => f.data.id)).toEqual(expected);
      expect([...expected].sort()).toEqual(asked.map((q) => q.id).sort());
      const created = adds.map((f) => Date.parse(f.data.createdAt));
      expect(created).toEqual([...created].sort((x, y) => x - y));
      expect(adds[0]!.data).toMatchObject({
        text: 'Backlog 0',
        format: 'TEXT',
        status: 'PENDING',
        askedBy: 'agent',
        answer: null,
        answeredAt: null,
      });
      expect(ready.data).toEqual({ pending: 5 });
    });

    it('shows the escalation ladder (API.md §18), and a fired step as a live interaction.add', async () => {
      const q = await ask({
        text: 'Escalate?',
        timeoutSeconds: 600,
        escalation: [
          { afterSeconds: 10, action: 'REMIND' },
          { afterSeconds: 20, action: 'REMIND' },
        ],
      });
      const plain = await ask({ text: 'No ladder' });
      const { sse } = await stream();
      const { adds } = await backlog(sse);
      const unfired = { action: 'REMIND', channel: null, recipient: null, firedAt: null, outcome: null };
      expect(adds.find((f) => f.data.id === q.id)!.data.escalations).toEqual([
        { afterSeconds: 10, ...unfired },
        { afterSeconds: 20, ...unfired },
      ]);
      expect(adds.find((f) => f.data.id === plain.id)!.data.escalations).toEqual([]);

      const firedAt = Date.UTC(2026, 11, 1, 12, 0, 0);
      await t.server.store.recordEscalation(
        q.id,
        0,
        { firedAt, outcome: 'FAILED: ops-discord: discord reply to message failed: HTTP 403 50013' },
        { action: 'REMIND', channel: null },
      );
      const updated = await frame(sse);
      expect(updated.event).toBe('interaction.add');
      expect(updated.data.id).toBe(q.id);
      expect(updated.data.escalations).toEqual([
        {
          ...unfired,
          afterSeconds: 10,
          firedAt: '2026-12-01T12:00:00.000Z',
          outcome: 'FAILED: ops-discord: discord reply to message failed: HTTP 403 50013',
        },
        { afterSeconds: 20, ...unfired },
      ]);
    });

    it('streams interaction.add, interaction.answered and interaction.removed (cancelled, timed out) live', async () => {
      const { sse } = await stream();
      await backlog(sse);

      const q = await ask({ text: 'Name?' });
      const added = await frame(sse);
      expect(added).toMatchObject({ event: 'interaction.add', data: { id: q.id, status: 'PENDING' } });

      const res = await httpRequest(`${url}/api/interactions/${q.id}/answer`, {
        method: 'POST',
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        body: JSON.stringify({ answer: 'Ada' }),
      });
      await res.text();
      expect(res.status).toBe(200);
      expect(await frame(sse)).toMatchObject({
        event: 'interaction.answered',
        data: { id: q.id, status: 'ANSWERED', answer: 'Ada', answeredBy: 'ops' },
      });

      const c = await ask({ text: 'Cancel me' });
      expect(await frame(sse)).toMatchObject({ event: 'interaction.add', data: { id: c.id } });
      await t.server.engine.cancel(OPS, c.id, 'not needed');
      expect(await frame(sse)).toMatchObject({
        event: 'interaction.removed',
        data: { id: c.id, status: 'CANCELLED', cancelReason: 'not needed' },
      });

      const soon = await ask({ text: 'Soon gone', timeoutSeconds: 1 });
      expect(await frame(sse)).toMatchObject({ event: 'interaction.add', data: { id: soon.id } });
      const removed = await frame(sse);
      expect(removed).toMatchObject({
        event: 'interaction.removed',
        data: { id: soon.id, status: 'TIMED_OUT' },
      });
      expect(removed.data.closedAt).not.toBeNull();
    });

    it('a restricted principal sees only its own audience, in the backlog and live', async () => {
      const forAlice = await ask({ text: 'For Alice', audience: 'alice' });
      await ask({ text: 'For Bob', audience: 'bob' });
      await ask({ text: 'Unaddressed' });
      const { sse } = await stream('alice');
      const { adds, ready } = await backlog(sse);
      expect(adds.map((f) => f.data.id)).toEqual([forAlice.id]);
      expect(ready.data).toEqual({ pending: 1 });

      const ops = (await stream('ops')).sse;
      expect((await backlog(ops)).ready.data).toEqual({ pending: 3 });

      // Frames arrive in order: the first one Alice gets after these is her own question.
      const bob = await ask({ text: 'Live for Bob', audience: 'bob' });
      await ask({ text: 'Live, unaddressed' });
      const mine = await ask({ text: 'Mine' }, ALICE);
      expect(await frame(sse)).toMatchObject({
        event: 'interaction.add',
        data: { id: mine.id, audience: 'alice' },
      });
      await t.server.engine.answer(OPS, bob.id, 'ok');
      await t.server.engine.cancel(ALICE, mine.id);
      expect(await frame(sse)).toMatchObject({ event: 'interaction.removed', data: { id: mine.id } });
      // The operator saw every one of them.
      const seen: string[] = [];
      while (seen.length < 5) seen.push((await frame(ops)).event);
      expect(seen).toEqual([
        'interaction.add',
        'interaction.add',
        'interaction.add',
        'interaction.answered',
        'interaction.removed',
      ]);
    });

    it('an agent sees only the questions it asked', async () => {
      const mine = await ask({ text: 'Mine' });
      await ask({ text: 'Theirs' }, { id: 'agent2', roles: ['agent'], restricted: false });
      const { sse } = await stream('agent');
      const { adds } = await backlog(sse);
      expect(adds.map((f) => f.data.id)).toEqual([mine.id]);
    });

    it('401 UNAUTHENTICATED without a key or with an unknown one, as JSON, not a stream', async () => {
      const none = await httpRequest(`${url}/api/interactions/stream`, {
        headers: { accept: 'text/event-stream' },
      });
      expect(none.status).toBe(401);
      expect(none.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await none.json()).toEqual({ error: 'missing or unknown API key', code: 'UNAUTHENTICATED' });
      const unknown = await httpRequest(`${url}/api/interactions/stream`, {
        headers: { accept: 'text/event-stream', 'x-api-key': 'not-a-known-key-00000000' },
      });
      expect(unknown.status).toBe(401);
      expect(await unknown.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    });

    it('a client that goes away ends its feed: the engine has no watcher left', async () => {
      const watchers = countWatchers(t.server.engine);
      const first = await stream();
      const second = await stream();
      await backlog(first.sse);
      await backlog(second.sse);
      expect(watchers.active()).toBe(2);
      first.abort();
      await until(() => watchers.active() === 1, 'the first feed unwatched');
      // The other stream is unaffected.
      const q = await ask({ text: 'Still live?' });
      expect(await frame(second.sse)).toMatchObject({ event: 'interaction.add', data: { id: q.id } });
      await second.sse.close();
      await until(() => watchers.active() === 0, 'the second feed unwatched');
    });

    it('frames larger than the socket’s buffer (each write waits for drain) leak no listeners', async () => {
      const warnings: Error[] = [];
      const onWarning = (w: Error): void => {
        warnings.push(w);
      };
      process.on('warning', onWarning);
      try {
        const { sse } = await stream();
        await backlog(sse);
        // 8192 code points of 4 bytes each: every frame is over 32 KiB, above the 16 KiB
        // high-water mark, so every write reports backpressure and the pump awaits 'drain'.
        const big = '\u{1F600}'.repeat(8192);
        const n = 15;
        for (let i = 0; i < n; i++) {
          const q = await ask({ text: big, groupId: `big-${i}` });
          const f = await frame(sse);
          expect([f.event, f.data.id, f.data.text.length]).toEqual(['interaction.add', q.id, big.length]);
        }
        // One more round trip through the event loop, so a warning emitted on the last write is in.
        await new Promise((r) => setImmediate(r));
        expect(
          warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
        ).toEqual([]);
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('uses a 15 s keepalive by default (the timer armed for an idle stream)', async () => {
      const spy = vi.spyOn(globalThis, 'setTimeout');
      try {
        const { sse } = await stream();
        await backlog(sse);
        // Armed when the stream opened and re-armed after the backlog frames.
        expect(spy.mock.calls.filter((c) => c[1] === 15_000).length).toBeGreaterThanOrEqual(2);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe(`stream keepalive (${store})`, () => {
    let set: EngineSet;
    let app: Awaited<ReturnType<typeof createHttpApp>>;
    let url: string;

    beforeEach(async () => {
      set = await startEngines(store);
      const engine = set.engines[0]!;
      const authenticator = createAuthenticator({
        accessControl: true,
        policy: DEFAULT_DOOR_POLICY,
        keyring: createKeyring(parsePrincipals(PRINCIPALS)),
      });
      const logger = pino({ level: 'silent' });
      app = await createHttpApp({
        engine,
        auth: authenticator,
        yoga: createGraphQLServer({ engine, authenticator, logger }),
        logger,
        maxBodyBytes: 65_536,
        streamKeepaliveMs: 100,
        rateLimit: { perMinute: 1000, redis: null, prefix: 'unused:' },
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterEach(async () => {
      await app.close();
      await set.close();
    });

    it('sends a `: keepalive` comment when idle, and frames still flow after it', async () => {
      const { res, sse } = await openSse(`${url}/api/interactions/stream`, { headers: auth('ops') });
      try {
        expect(res.status).toBe(200);
        await backlog(sse);
        expect(await sse.next()).toEqual({ kind: 'comment', text: 'keepalive' });
        const q = await set.engines[0]!.ask(AGENT, { text: 'After a keepalive' }, { holdSeconds: 0 });
        let item = await sse.next();
        while (item?.kind === 'comment') item = await sse.next();
        expect(item).toMatchObject({ kind: 'event', event: 'interaction.add' });
        expect(JSON.parse((item as { data: string }).data).id).toBe(q.question.id);
        expect(await sse.next()).toEqual({ kind: 'comment', text: 'keepalive' });
      } finally {
        await sse.close();
      }
    });
  });
}
