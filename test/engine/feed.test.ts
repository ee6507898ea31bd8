// The inbox feed (openFeed) over the engine on each real store: SNAPSHOT then one event per
// change with nothing lost or doubled while it connects, a bounded queue that resyncs a slow
// consumer, a fresh SNAPSHOT after the store lost its subscription, and a clean return().
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import type { FeedEvent, Interactions } from '../../src/engine/types.ts';
import { readBacklog, sizeOf } from '../../src/engine/views/backlog.ts';
import { type Feed, openFeed } from '../../src/engine/views/feed.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import {
  AGENT,
  type Engine,
  type EngineSet,
  OPS,
  SETTINGS,
  type StoreKind,
  startEngines,
} from '../support/engines.ts';
import { uniquePrefix } from '../support/fixtures.ts';

/** The next event, or a failure naming what was awaited (never hangs the run). */
async function nextOf(feed: Feed, what: string, timeoutMs = 10_000): Promise<FeedEvent> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no feed event within ${timeoutMs} ms: ${what}`)), timeoutMs);
  });
  try {
    const r = await Promise.race([feed.next(), timeout]);
    if (r.done) throw new Error(`the feed ended while waiting for ${what}`);
    return r.value;
  } finally {
    clearTimeout(timer);
  }
}

/** A whole SNAPSHOT: its first part and the backlog ASKED parts that follow while `more` is true. */
async function snapshotOf(feed: Feed, what: string): Promise<FeedEvent> {
  const first = await nextOf(feed, what);
  expect(first.type).toBe('SNAPSHOT');
  const questions = [...first.questions];
  let more = first.more;
  while (more) {
    const part = await nextOf(feed, `${what} (continued)`);
    expect(part).toMatchObject({ type: 'ASKED', backlog: true });
    questions.push(...part.questions);
    more = part.more;
  }
  return { type: 'SNAPSHOT', questions, more: false };
}

/** Counts the live watchers of an engine by wrapping its real watch (calls through). */
function countWatchers(engine: Interactions): { active(): number; delivered(): number } {
  let active = 0;
  let delivered = 0;
  const real = engine.watch.bind(engine);
  engine.watch = (p, listener) => {
    active++;
    const stop = real(p, {
      event(e) {
        delivered++;
        listener.event(e);
      },
      resync: () => listener.resync(),
      close: () => listener.close?.(),
    });
    let stopped = false;
    return () => {
      if (!stopped) {
        stopped = true;
        active--;
      }
      stop();
    };
  };
  return { active: () => active, delivered: () => delivered };
}

/** Resolves once `n` ASKED announcements reached this engine's watchers (watch before asking). */
function askedAnnounced(engine: Engine, n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const stop = engine.watch(OPS, {
      event(e) {
        if (e.type === 'ASKED' && ++seen === n) {
          stop();
          resolve();
        }
      },
      resync() {},
    });
  });
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`openFeed on the ${kind} store`, () => {
    let set: EngineSet;
    let engine: Engine;

    beforeEach(async () => {
      set = await startEngines(kind);
      engine = set.engines[0]!;
    });
    afterEach(async () => {
      await set.close();
    });

    const ask = (text: string) =>
      engine.ask(AGENT, { text, format: 'TEXT' }, { holdSeconds: 0 }).then((r) => r.question);

    it('a feed opened while 50 questions are asked and others answered sees each exactly once, and ends up with the store’s view', async () => {
      // The SNAPSHOT read starts after a varying number of the asks were sent.
      for (const offset of [0, 1, 10, 25, 40, 49, 50]) {
        // Asked before the feed opens (no ASKED will come), answered around the SNAPSHOT read:
        // an ANSWERED for one the snapshot no longer holds must not reach the consumer.
        // (Their announcements are through before it opens: pub/sub delivery lags the ask.)
        const announced = askedAnnounced(engine, 12);
        const earlier = await Promise.all(
          Array.from({ length: 12 }, (_, i) => ask(`earlier ${offset}/${i}`)),
        );
        await announced;
        const feed = openFeed(engine, OPS);
        try {
          // Two are answered after the feed started listening and before its SNAPSHOT read.
          await engine.answer(OPS, earlier[10]!.id, 'before the read');
          await engine.answer(OPS, earlier[11]!.id, 'before the read');
          const asks: Promise<QuestionRecord>[] = [];
          const answers: Promise<unknown>[] = [];
          let first: Promise<FeedEvent> | null = null;
          for (let i = 0; i < 50; i++) {
            if (i === offset) first = snapshotOf(feed, 'SNAPSHOT');
            asks.push(ask(`round ${offset}, question ${i}`));
            if (i % 5 === 0) answers.push(engine.answer(OPS, earlier[i / 5]!.id, 'early'));
          }
          first ??= snapshotOf(feed, 'SNAPSHOT');
          const round = await Promise.all(asks);
          await Promise.all(answers);
          const ids = new Set(round.map((q) => q.id));
          const tracked = new Set([...ids, ...earlier.map((q) => q.id)]);
          // Every third one is answered while the feed may still be reading its snapshot.
          const answered = round.filter((_, i) => i % 3 === 0).map((q) => q.id);
          await Promise.all(answered.map((id) => engine.answer(OPS, id, 'done')));
          const sentinel = await ask(`round ${offset}, sentinel`);

          const snapshot = await first;
          expect(snapshot.type).toBe('SNAPSHOT');
          const shown = snapshot.questions.filter((q) => tracked.has(q.id)).map((q) => q.id);
          const pending = new Set(shown);
          const seen = shown.filter((id) => ids.has(id));
          for (;;) {
            const ev = await nextOf(feed, `round ${offset}: the sentinel`);
            const id = ev.questions[0]!.id;
            if (id === sentinel.id) {
              expect(ev.type).toBe('ASKED');
              break;
            }
            expect(tracked.has(id), `an event for a question of this round (${ev.type})`).toBe(true);
            if (ev.type === 'ASKED') {
              expect(ids.has(id), 'ASKED for a question asked before the feed opened').toBe(true);
              seen.push(id);
              expect(pending.has(id), 'ASKED for a question already shown').toBe(false);
              pending.add(id);
            } else {
              expect(ev.type).toBe('ANSWERED');
              expect(pending.has(id), 'ANSWERED for a question the consumer was never shown').toBe(true);
              pending.delete(id);
            }
          }
          // Each of the 50 exactly once across SNAPSHOT + ASKED...
          expect(seen).toHaveLength(50);
          expect(new Set(seen)).toEqual(ids);
          // ...and what the consumer now believes pending is what the store holds.
          const truth = (await engine.pending(OPS)).map((q) => q.id).filter((id) => tracked.has(id));
          expect([...pending].sort()).toEqual(truth.sort());
          expect(truth).toHaveLength(50 - answered.length);
        } finally {
          await feed.return();
        }
      }
    });

    it('takeNow hands out a queued change at once, in order and by the known-ids rule; onReady calls back once when one arrives', async () => {
      const feed = openFeed(engine, OPS, { maxQueue: 3 });
      try {
        // Before its SNAPSHOT the feed needs next().
        expect(feed.takeNow()).toBeUndefined();
        expect((await nextOf(feed, 'SNAPSHOT')).questions).toEqual([]);
        expect(feed.takeNow()).toBeNull();
        let calls = 0;
        const arrived = new Promise<void>((resolve) => {
          feed.onReady(() => {
            calls++;
            resolve();
          });
        });
        const announced = askedAnnounced(engine, 2);
        const a = await ask('taken now 1');
        const b = await ask('taken now 2');
        await announced;
        await arrived;
        expect(calls).toBe(1);
        expect(feed.takeNow()).toEqual({ type: 'ASKED', questions: [a], more: false });
        expect(feed.takeNow()).toEqual({ type: 'ASKED', questions: [b], more: false });
        expect(feed.takeNow()).toBeNull();
        // Past maxQueue untaken, the consumer is sent back to next() for a fresh SNAPSHOT.
        const more = askedAnnounced(engine, 4);
        for (let i = 0; i < 4; i++) await ask(`overflow ${i}`);
        await more;
        expect(feed.takeNow()).toBeUndefined();
        const snapshot = await snapshotOf(feed, 'SNAPSHOT after the overflow');
        expect(snapshot.questions.map((q) => q.text)).toEqual(
          expect.arrayContaining(['taken now 1', 'taken now 2', 'overflow 0', 'overflow 3']),
        );
        expect(calls).toBe(1);
        await feed.return();
        expect(feed.takeNow()).toBeUndefined();
      } finally {
        await feed.return();
      }
    });

    it('a consumer that reads nothing while up to maxQueue changes arrive gets them one by one', async () => {
      const feed = openFeed(engine, OPS, { maxQueue: 5 });
      try {
        expect((await nextOf(feed, 'SNAPSHOT')).questions).toEqual([]);
        const announced = askedAnnounced(engine, 5);
        const qs = [];
        for (let i = 0; i < 5; i++) qs.push(await ask(`queued ${i}`));
        await announced;
        for (const q of qs) {
          expect(await nextOf(feed, `ASKED ${q.text}`)).toEqual({
            type: 'ASKED',
            questions: [q],
            more: false,
          });
        }
      } finally {
        await feed.return();
      }
    });

    it('one change past maxQueue while the consumer reads nothing: a fresh SNAPSHOT next', async () => {
      const feed = openFeed(engine, OPS, { maxQueue: 5 });
      try {
        expect((await nextOf(feed, 'SNAPSHOT')).questions).toEqual([]);
        const announced = askedAnnounced(engine, 6);
        const qs = [];
        for (let i = 0; i < 6; i++) qs.push(await ask(`queued ${i}`));
        await announced;
        const snapshot = await nextOf(feed, 'the resync SNAPSHOT');
        expect(snapshot.type).toBe('SNAPSHOT');
        expect(snapshot.questions.map((q) => q.id).sort()).toEqual(qs.map((q) => q.id).sort());
      } finally {
        await feed.return();
      }
    });

    it('a consumer that reads nothing while far more than maxQueue changes arrive gets a fresh SNAPSHOT next, not the backlog', async () => {
      const feed = openFeed(engine, OPS, { maxQueue: 5 });
      try {
        expect((await nextOf(feed, 'SNAPSHOT')).questions).toEqual([]);
        const n = 200;
        const announced = askedAnnounced(engine, n);
        const qs: QuestionRecord[] = [];
        for (let i = 0; i < n; i += 50) {
          qs.push(...(await Promise.all(Array.from({ length: 50 }, (_, j) => ask(`flood ${i + j}`)))));
        }
        await announced;
        const snapshot = await snapshotOf(feed, 'the resync SNAPSHOT');
        expect(snapshot.questions.map((q) => q.id).sort()).toEqual(qs.map((q) => q.id).sort());
        // Nothing of the dropped backlog follows: the next event is the next change.
        const after = await ask('after the flood');
        expect(await nextOf(feed, 'the change after the flood')).toEqual({
          type: 'ASKED',
          questions: [after],
          more: false,
        });
        // And it keeps working as a live feed.
        await engine.answer(OPS, qs[0]!.id, 'ok');
        const answered = await nextOf(feed, 'ANSWERED');
        expect(answered.type).toBe('ANSWERED');
        expect(answered.questions[0]!.id).toBe(qs[0]!.id);
      } finally {
        await feed.return();
      }
    });

    it('a backlog larger than one batch arrives in parts, oldest first, read only as the consumer pulls', async () => {
      const qs: QuestionRecord[] = [];
      for (let i = 0; i < 30; i++) await ask(`backlog ${i}`);
      const store = set.stores[0]!;
      // Oldest first as the store orders them (asks within one millisecond tie by id).
      for (const q of await store.getMany(await store.pendingIds({}))) qs.push(q!);
      const realGetMany = store.getMany.bind(store);
      let fetched = 0;
      store.getMany = (ids) => {
        fetched += ids.length;
        return realGetMany(ids);
      };
      // A budget of one byte: one question per batch after the first batch of 8.
      const feed = openFeed(engine, OPS, { batchBytes: 1 });
      try {
        const first = await nextOf(feed, 'SNAPSHOT');
        expect(first).toMatchObject({ type: 'SNAPSHOT', more: true });
        expect(first.questions.map((q) => q.id)).toEqual(qs.slice(0, 8).map((q) => q.id));
        // At most the first batch and the one-question look-ahead (this process holds the
        // announced ones, which are not read at all: see the readBacklog test below).
        expect(fetched).toBeLessThanOrEqual(9);
        // Answered while the backlog streams: #3 was sent (its ANSWERED follows the backlog),
        // #20 was not read yet (it never shows as pending).
        await engine.answer(OPS, qs[3]!.id, 'ok');
        await engine.answer(OPS, qs[20]!.id, 'ok');
        const rest: FeedEvent[] = [];
        for (let more = true; more; ) {
          const part = await nextOf(feed, 'a backlog part');
          rest.push(part);
          more = part.more;
        }
        expect(rest.every((e) => e.type === 'ASKED' && e.backlog === true && e.questions.length === 1)).toBe(
          true,
        );
        const sent = [...first.questions, ...rest.flatMap((e) => e.questions)].map((q) => q.id);
        expect(sent).toEqual(qs.filter((_, i) => i !== 20).map((q) => q.id));
        const answered = await nextOf(feed, 'ANSWERED #3');
        expect(answered).toMatchObject({ type: 'ANSWERED', more: false });
        expect(answered.questions[0]!.id).toBe(qs[3]!.id);
        // #20's ANSWERED is not sent: the consumer never knew it. The next event is a new change.
        const after = await ask('after the backlog');
        expect(await nextOf(feed, 'ASKED after')).toEqual({ type: 'ASKED', questions: [after], more: false });
      } finally {
        await feed.return();
      }
    });

    it('takeNow hands out the backlog parts whose batch is in hand, upcoming shows the ones after them, and next() reads on', async () => {
      for (let i = 0; i < 40; i++) await ask(`part ${i}`);
      const store = set.stores[0]!;
      const ids = await store.pendingIds({});
      const one = sizeOf((await store.getMany(ids.slice(0, 1)))[0]!);
      // About five questions' worth a part: the SNAPSHOT's first read of 8, then reads of ~5.
      const feed = openFeed(engine, OPS, { batchBytes: 5 * one });
      try {
        expect(feed.takeNow()).toBeUndefined();
        expect(feed.upcoming(3)).toEqual([]);
        const first = await nextOf(feed, 'SNAPSHOT');
        expect(first).toMatchObject({ type: 'SNAPSHOT', more: true });
        const sent = first.questions.map((q) => q.id);
        let taken = 0;
        let read = 0;
        for (let more = true; more; ) {
          const ahead = feed.upcoming(2).map((q) => q.id);
          const now = feed.takeNow();
          let part: FeedEvent;
          if (now) {
            taken++;
            // Handed out only while another question of the batch follows it: `more` holds.
            expect(now).toMatchObject({ type: 'ASKED', more: true, backlog: true });
            part = now;
          } else {
            expect(now).toBeUndefined();
            read++;
            part = await nextOf(feed, 'a backlog part that needs a read');
          }
          expect(part.questions).toHaveLength(1);
          // upcoming(2) began with the part that came next.
          expect(ahead[0]).toBe(part.questions[0]!.id);
          sent.push(part.questions[0]!.id);
          more = part.more;
        }
        expect(sent).toEqual(ids);
        expect(taken).toBeGreaterThan(read);
        expect(read).toBeGreaterThan(1);
        expect(feed.upcoming(3)).toEqual([]);
        // After the backlog, takeNow is back to live changes: none yet.
        expect(feed.takeNow()).toBeNull();
      } finally {
        await feed.return();
      }
    });

    it('readBacklog cuts parts by the JSON bytes of the questions: a first part of about the budget, not of an estimate', async () => {
      for (let i = 0; i < 60; i++) await ask(`sized ${i} `.padEnd(40 + (i % 7) * 30, '.'));
      const store = set.stores[0]!;
      const all = (await store.getMany(await store.pendingIds({}))) as QuestionRecord[];
      const bytes = (qs: readonly QuestionRecord[]) =>
        qs.reduce((n, q) => n + Buffer.byteLength(JSON.stringify(q)), 0);
      const budget = Math.floor(bytes(all) / 3);
      const parts: QuestionRecord[][] = [];
      for await (const part of readBacklog(store, OPS, budget)) parts.push(part);
      expect(parts.flat().map((q) => q.id)).toEqual(all.map((q) => q.id));
      // Each part but the last reaches the budget, and overshoots it by less than its last read.
      for (const part of parts.slice(0, -1)) {
        expect(bytes(part)).toBeGreaterThanOrEqual(budget);
        expect(bytes(part)).toBeLessThan(budget * 1.5);
      }
      expect(parts.length).toBeGreaterThanOrEqual(3);
      expect(parts.length).toBeLessThanOrEqual(4);
    });

    it('readBacklog takes held records as they are and reads only the others, still one batch at a time', async () => {
      for (let i = 0; i < 30; i++) await ask(`held ${i}`);
      const store = set.stores[0]!;
      const ids = await store.pendingIds({});
      const all = (await store.getMany(ids)) as QuestionRecord[];
      const realGetMany = store.getMany.bind(store);
      const reads: string[][] = [];
      store.getMany = (some) => {
        reads.push([...some]);
        return realGetMany(some);
      };
      // Every other question is held (as this process's announced questions would be).
      const held = new Map(all.filter((_, i) => i % 2 === 0).map((q) => [q.id, q]));
      const reader = readBacklog(store, OPS, 1, (id) => held.get(id));
      const first = await reader.next();
      expect(first.done).toBe(false);
      expect((first.value as QuestionRecord[]).map((q) => q.id)).toEqual(ids.slice(0, 8));
      // Only the odd ones of the first batch of 8 were read.
      expect(reads).toEqual([[ids[1], ids[3], ids[5], ids[7]]]);
      const rest: string[] = [];
      for await (const part of reader) rest.push(...part.map((q) => q.id));
      expect(rest).toEqual(ids.slice(8));
      expect(reads.flat()).toEqual(ids.filter((_, i) => i % 2 === 1));
    });

    it('return() ends a waiting next(), unwatches the engine, and later changes reach nobody', async () => {
      // Watches the engine before the counting starts: it tells when the next ASKED went out.
      const control = askedAnnounced(engine, 1);
      const watchers = countWatchers(engine);
      const feed = openFeed(engine, OPS);
      expect(watchers.active()).toBe(1);
      await nextOf(feed, 'SNAPSHOT');
      const waiting = feed.next();
      expect(await feed.return()).toEqual({ done: true, value: undefined });
      expect(await waiting).toEqual({ done: true, value: undefined });
      expect(watchers.active()).toBe(0);

      const before = watchers.delivered();
      await ask('after return');
      await control;
      expect(watchers.delivered()).toBe(before);
      expect(await feed.next()).toEqual({ done: true, value: undefined });
    });

    it('return() during the SNAPSHOT read ends the feed without a SNAPSHOT; for-await with break unwatches too', async () => {
      const watchers = countWatchers(engine);
      await ask('already pending');
      const feed = openFeed(engine, OPS);
      const reading = feed.next();
      await feed.return();
      expect(await reading).toEqual({ done: true, value: undefined });
      expect(watchers.active()).toBe(0);

      const looped = openFeed(engine, OPS);
      expect(watchers.active()).toBe(1);
      const types: string[] = [];
      for await (const ev of looped) {
        types.push(ev.type);
        break;
      }
      expect(types).toEqual(['SNAPSHOT']);
      expect(watchers.active()).toBe(0);
    });
  });
}

describe('openFeed after the Redis store loses its subscription', () => {
  const name = `feed-test-${randomBytes(6).toString('hex')}`;
  let redis: Redis;
  let subscriber: Redis;
  let engine: Engine;

  beforeEach(async () => {
    const url = inject('redisUrl');
    redis = new Redis(url, { maxRetriesPerRequest: null });
    // Named, so only this subscriber is killed: other files share this Redis and its pub/sub.
    subscriber = new Redis(url, { maxRetriesPerRequest: null, connectionName: name });
    const store = createRedisStore({ redis, subscriber, prefix: uniquePrefix() });
    engine = createInteractions({ store, settings: SETTINGS });
    await engine.start();
  });
  afterEach(async () => {
    await engine.stop();
    redis.disconnect();
    subscriber.disconnect();
  });

  /** CLIENT KILL of this engine's subscriber connection only. */
  async function killSubscriber(): Promise<void> {
    const list = String(await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
    const ids = list
      .split('\n')
      .filter((line) => line.includes(` name=${name} `))
      .map((line) => /^id=(\d+)/.exec(line)?.[1]);
    expect(ids).toHaveLength(1);
    expect(Number(await redis.call('CLIENT', 'KILL', 'ID', ids[0]!))).toBe(1);
  }

  const ask = (text: string) =>
    engine.ask(AGENT, { text, format: 'TEXT' }, { holdSeconds: 0 }).then((r) => r.question);

  it('a resync yields a fresh SNAPSHOT holding what changed while it was cut off, then live events again', async () => {
    const feed = openFeed(engine, OPS);
    try {
      expect((await nextOf(feed, 'SNAPSHOT')).questions).toEqual([]);
      const before = await ask('before the cut');
      expect(await nextOf(feed, 'ASKED before the cut')).toEqual({
        type: 'ASKED',
        questions: [before],
        more: false,
      });

      await killSubscriber();
      // Published while the subscriber is reconnecting: this announcement is lost.
      const during = await ask('during the cut');
      await engine.answer(OPS, before.id, 'answered during the cut');

      const snapshot = await nextOf(feed, 'the resync SNAPSHOT');
      expect(snapshot.type).toBe('SNAPSHOT');
      expect(snapshot.questions.map((q) => q.id)).toEqual([during.id]);

      const after = await ask('after the cut');
      expect(await nextOf(feed, 'ASKED after the cut')).toEqual({
        type: 'ASKED',
        questions: [after],
        more: false,
      });
      await engine.answer(OPS, during.id, 'ok');
      const answered = await nextOf(feed, 'ANSWERED during');
      expect([answered.type, answered.questions[0]!.id]).toEqual(['ANSWERED', during.id]);
    } finally {
      await feed.return();
    }
  });
});
