// The outbox worker as a rolling pool, over both real stores: a receiver that never answers
// holds at most its own slots while a healthy target's delivery goes through (issue: 100 hung
// resolutions delayed an unrelated webhook by 19-30 s); the per-target cap is reached and never
// passed; a failing target is backed off without holding the others, its untried items handed
// back with their attempt uncounted; given-up items become dead letters.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/engine/logger.ts';
import { createResumeWebhooks } from '../../src/engine/outbox/resume-webhooks.ts';
import {
  createOutboxWorker,
  type FollowUpHandler,
  type OutboxWorker,
  type OutboxWorkerOptions,
} from '../../src/engine/outbox/worker.ts';
import type { OutboxItem, QuestionStore } from '../../src/store/types.ts';
import { startEngines } from '../support/engines.ts';
import { startHungReceiver } from '../support/fakes/hung-receiver.ts';
import { deferred, specOf } from '../support/fixtures.ts';
import { OUTBOX_CREATE_OPTS, resolvedWithFollowUps } from '../support/resolved.ts';
import { startReceiver, webhookSecret } from '../webhooks/receiver.ts';

const opts = OUTBOX_CREATE_OPTS;
const FAR = 24 * 3600_000;

describe.each(['memory', 'redis'] as const)('outbox pool (%s store)', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function store(): Promise<QuestionStore> {
    const set = await startEngines(kind, 1);
    cleanups.push(() => set.close());
    return set.stores[0]!;
  }

  function worker(
    s: QuestionStore,
    handlers: Record<string, FollowUpHandler>,
    more: Partial<OutboxWorkerOptions> = {},
  ): OutboxWorker {
    const w = createOutboxWorker({ store: s, handlers, logger: silentLogger, pollMs: 20, ...more });
    cleanups.push(() => w.stop());
    w.start();
    return w;
  }

  const resolved = resolvedWithFollowUps;

  /** Every item left, however far off it is due (leased to a throwaway owner). */
  async function leftOver(s: QuestionStore): Promise<OutboxItem[]> {
    return s.outbox.leaseDue(Date.now() + FAR, 1000, 1000, 'inspector');
  }

  it('100 items for a receiver that never answers do not hold a healthy target: it is delivered while they hang', async () => {
    const s = await store();
    const hung = await startHungReceiver();
    const healthy = await startReceiver();
    cleanups.push(() => healthy.close());
    const secret = webhookSecret();
    // The hung ones first: the healthy item is the newest, behind all 100 in the queue.
    await resolved(s, 100, ['webhook:hung']);
    const [healthyId] = await resolved(s, 1, ['webhook:ok']);
    const w = worker(
      s,
      {
        webhook: createResumeWebhooks({
          endpoints: { hung: { url: hung.url, secret }, ok: { url: healthy.url, secret } },
          logger: silentLogger,
        }),
      },
      { perTarget: 4, concurrency: 16 },
    );
    // Cut the hung sockets before the worker stops (it waits for the items in hand).
    cleanups.push(() => hung.close());
    const [delivery] = await healthy.received(1);
    expect(JSON.parse(delivery!.body).question.id).toBe(healthyId);
    // The hung receiver holds requests (the worker took it on) and answered none: the healthy
    // delivery went through while they were in flight, not after their 10 s timeouts.
    await hung.waitFor(1);
    expect(hung.received()).toBeGreaterThanOrEqual(1);
    expect(hung.received()).toBeLessThanOrEqual(4);
    // Four hung deliveries were begun first (the cap) and are still in flight.
    expect(w.inFlight()).toBeGreaterThanOrEqual(4);
    // None of the hung items was settled: they all wait for their receiver (the healthy one
    // may still be in the middle of its acknowledgement).
    const { items } = await s.outbox.stats(Date.now());
    expect(items).toBeGreaterThanOrEqual(100);
  });

  it('the per-target cap is reached and never passed; other targets go on meanwhile', async () => {
    const s = await store();
    const aIds = await resolved(s, 20, ['webhook:a']);
    const bIds = await resolved(s, 5, ['webhook:b']);
    const gate = deferred<void>();
    const bDone = deferred<void>();
    const performed = new Map<string, number>();
    const attempts: number[] = [];
    let inA = 0;
    let maxA = 0;
    let aDone = 0;
    const allA = deferred<void>();
    let bCount = 0;
    worker(
      s,
      {
        webhook: async (item, _q, name) => {
          performed.set(item.id, (performed.get(item.id) ?? 0) + 1);
          attempts.push(item.attempt);
          if (name === 'b') {
            if (++bCount === bIds.length) bDone.resolve();
            return { kind: 'done' };
          }
          inA++;
          maxA = Math.max(maxA, inA);
          await gate.promise;
          inA--;
          if (++aDone === aIds.length) allA.resolve();
          return { kind: 'done' };
        },
      },
      { perTarget: 3, concurrency: 10, paceMs: 50 },
    );
    // Every b is done while the a's hold their three slots.
    await bDone.promise;
    expect(inA).toBe(3);
    expect(maxA).toBe(3);
    gate.resolve();
    await allA.promise;
    expect(maxA).toBe(3);
    // Exactly once each, and a hand-back never counted as an attempt.
    expect([...performed.values()].every((n) => n === 1)).toBe(true);
    expect(performed.size).toBe(25);
    expect(attempts.every((a) => a === 0)).toBe(true);
  });

  it('a target with its own cap (perTargetOf) reaches it and never passes it; the others keep perTarget', async () => {
    const s = await store();
    const wideIds = await resolved(s, 12, ['webhook:wide']);
    const narrowIds = await resolved(s, 12, ['webhook:narrow']);
    const gate = deferred<void>();
    const inFlight = { wide: 0, narrow: 0 };
    const most = { wide: 0, narrow: 0 };
    const bothFull = deferred<void>();
    let done = 0;
    const all = deferred<void>();
    worker(
      s,
      {
        webhook: async (_item, _q, name) => {
          const k = name as 'wide' | 'narrow';
          inFlight[k]++;
          most[k] = Math.max(most[k], inFlight[k]);
          if (inFlight.wide === 6 && inFlight.narrow === 2) bothFull.resolve();
          await gate.promise;
          inFlight[k]--;
          if (++done === wideIds.length + narrowIds.length) all.resolve();
          return { kind: 'done' };
        },
      },
      {
        perTarget: 2,
        perTargetOf: (target) => (target === 'webhook:wide' ? 6 : undefined),
        concurrency: 20,
        paceMs: 50,
      },
    );
    await bothFull.promise;
    expect(most).toEqual({ wide: 6, narrow: 2 });
    gate.resolve();
    await all.promise;
    expect(most).toEqual({ wide: 6, narrow: 2 });
  });

  it('a failing target is backed off without holding the others; its untried items keep attempt 0', async () => {
    const s = await store();
    await resolved(s, 10, ['webhook:failing']);
    const healthyIds = await resolved(s, 10, ['webhook:fine']);
    let failingCalls = 0;
    let fine = 0;
    const allFine = deferred<void>();
    const w = worker(
      s,
      {
        webhook: async (_item, _q, name) => {
          if (name === 'failing') {
            failingCalls++;
            return { kind: 'retry', at: Date.now(), reason: 'HTTP 503' };
          }
          if (++fine === healthyIds.length) allFine.resolve();
          return { kind: 'done' };
        },
      },
      // One failure leaves the target alone for an hour: nothing of it is tried again here.
      { perTarget: 2, concurrency: 8, targetBackoffMs: () => 3600_000 },
    );
    await allFine.promise;
    await w.stop();
    // At most its cap was tried before the first failure came back; none after.
    expect(failingCalls).toBeGreaterThanOrEqual(1);
    expect(failingCalls).toBeLessThanOrEqual(2);
    const left = await leftOver(s);
    expect(left).toHaveLength(10);
    expect(left.every((i) => i.target === 'webhook:failing')).toBe(true);
    // The tried ones count one attempt; the rest were handed back untried.
    expect(left.filter((i) => i.attempt === 1)).toHaveLength(failingCalls);
    expect(left.filter((i) => i.attempt === 0)).toHaveLength(10 - failingCalls);
    // Handed back behind the backoff, except those tried (their own retry time) and any
    // still waiting for a slot when the worker stopped (handed back due now).
    const now = Date.now();
    expect(left.filter((i) => i.dueAt > now + 1800_000).length).toBeGreaterThanOrEqual(10 - 2 * 2);
  });

  it('an item older than maxAgeMs that its backed-off target cannot take becomes a dead letter, not a silent expiry', async () => {
    const s = await store();
    const spec = specOf();
    await s.create(spec, { ...opts, followUps: ['webhook:down'] });
    const enqueuedAt = Date.now() - 26 * 3600_000;
    await s.claim(spec.id, {
      status: 'ANSWERED',
      answer: true,
      answeredBy: 'ops',
      now: enqueuedAt,
      retentionMs: FAR * 2,
    });
    let calls = 0;
    const dead = deferred<string>();
    worker(
      s,
      {
        webhook: async () => {
          calls++;
          return { kind: 'retry', at: Date.now(), reason: 'webhook down timed out' };
        },
      },
      { targetBackoffMs: () => 3600_000, onDead: (_item, reason) => dead.resolve(reason) },
    );
    // Tried once (it could begin), failed, then found too old to hand back behind the backoff.
    expect(await dead.promise).toBe(
      'webhook:down kept failing or stayed busy; given up 26 h after it was enqueued',
    );
    expect(calls).toBe(1);
    const [letter] = await s.outbox.deadLetters(Date.now(), 10);
    expect(letter).toMatchObject({ questionId: spec.id, target: 'webhook:down', attempts: 2, enqueuedAt });
    expect(await leftOver(s)).toEqual([]);
  });

  it('a drop and an item past its attempts become dead letters, with the reason', async () => {
    const s = await store();
    const [goneId] = await resolved(s, 1, ['webhook:gone']);
    const [flakyId] = await resolved(s, 1, ['channel:flaky']);
    const dead: string[] = [];
    const both = deferred<void>();
    worker(
      s,
      {
        webhook: async () => ({ kind: 'drop', reason: 'webhook gone answered 410 Gone', gone: true }),
        channel: async () => ({ kind: 'retry', at: Date.now(), reason: 'provider down' }),
      },
      {
        maxAttempts: 3,
        targetBackoffMs: () => 0,
        onDead: (item) => {
          dead.push(item.questionId);
          if (dead.length === 2) both.resolve();
        },
      },
    );
    await both.promise;
    expect(dead.sort()).toEqual([goneId, flakyId].sort());
    const letters = await s.outbox.deadLetters(Date.now(), 10);
    expect(letters.map((l) => [l.target, l.attempts, l.lastError]).sort()).toEqual(
      [
        ['channel:flaky', 3, 'provider down; gave up after 3 attempts'],
        ['webhook:gone', 1, 'webhook gone answered 410 Gone'],
      ].sort(),
    );
    expect(await leftOver(s)).toEqual([]);
    expect(await s.outbox.stats(Date.now())).toEqual({ items: 0, deadLetters: 2 });
  });
  it('items handed back while their target is full are all delivered when the clock and the pace are not whole milliseconds', async () => {
    const s = await store();
    await resolved(s, 20, ['webhook:one']);
    let done = 0;
    const all = deferred<void>();
    const errors: unknown[] = [];
    const logger = { ...silentLogger, error: (...args: unknown[]) => errors.push(args) };
    const w = worker(
      s,
      {
        webhook: async () => {
          if (++done === 20) all.resolve();
          return { kind: 'done' };
        },
      },
      // One slot for the target and room for many: most leased items are handed back. The
      // clock has fractions, as performance.now() does; the lease outlasts the test.
      {
        perTarget: 1,
        concurrency: 16,
        leaseMs: 600_000,
        clock: () => performance.timeOrigin + performance.now(),
        logger,
      },
    );
    await all.promise;
    // The last item is settled (removed) once its handler returned: stop waits for that.
    await w.stop();
    expect(done).toBe(20);
    expect(errors, JSON.stringify(errors).slice(0, 500)).toEqual([]);
    expect(await leftOver(s)).toEqual([]);
  });
});
