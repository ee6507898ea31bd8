// Escalation steps as durable timers (API.md §18), one suite against both stores: each due step
// moves into the outbox exactly once, never after the question left PENDING, and what a fired
// step recorded is kept once and announced as UPDATED. Time is driven through `now`.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { EscalationStep } from '../../src/domain/escalation.ts';
import type { QuestionSpec } from '../../src/domain/question.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore, StoreEvent } from '../../src/store/types.ts';
import { deferred, openRedisStore, redisPair, specOf, uniquePrefix } from '../support/fixtures.ts';

const T0 = 1_900_000_000_000;
const LADDER: EscalationStep[] = [
  { afterSeconds: 10, action: 'REMIND', channel: null, recipient: null },
  { afterSeconds: 20, action: 'REROUTE', channel: 'oncall-sms', recipient: '+15550100' },
];
const opts = (spec: QuestionSpec) => ({
  maxPending: 1000,
  retentionMs: 60_000,
  escalationDue: (spec.escalation ?? []).map((s) => spec.createdAt + s.afterSeconds * 1000),
});

function laddered(over: Partial<QuestionSpec> = {}): QuestionSpec {
  // Far in the future, so the stores' own clocks never expire it while the test drives `now`.
  return specOf({ createdAt: T0, timeoutAt: T0 + 3600_000, escalation: LADDER, channel: 'ops', ...over });
}

const makers: [string, () => Promise<{ store: QuestionStore; close(): Promise<void> }>][] = [
  [
    'memory',
    async () => {
      const store = createMemoryStore();
      return { store, close: () => store.close() };
    },
  ],
  ['redis', async () => openRedisStore(inject('redisUrl'))],
];

for (const [name, make] of makers) {
  describe(`escalation timers (${name})`, () => {
    let store: QuestionStore;
    let close: () => Promise<void>;
    let events: StoreEvent[];

    beforeEach(async () => {
      ({ store, close } = await make());
      events = [];
      await store.listen({ event: (e) => events.push(e), resync() {} });
    });
    afterEach(() => close());

    async function ask(over: Partial<QuestionSpec> = {}): Promise<QuestionSpec> {
      const spec = laddered(over);
      expect((await store.create(spec, opts(spec))).kind).toBe('created');
      return spec;
    }

    it('moves each step into the outbox once, when it is due and not before', async () => {
      const spec = await ask();
      expect(await store.escalateDue(T0 + 9_999, 100)).toBe(0);
      expect(await store.escalateDue(T0 + 10_000, 100)).toBe(1);
      expect(await store.escalateDue(T0 + 10_000, 100)).toBe(0);
      const first = await store.outbox.leaseDue(T0 + 10_000, 10, 60_000, 'w');
      expect(first.map((i) => i.id)).toEqual([`${spec.id}:escalate:0`]);
      expect(await store.escalateDue(T0 + 25_000, 100)).toBe(1);
      const second = await store.outbox.leaseDue(T0 + 25_000, 10, 60_000, 'w');
      expect(second.map((i) => i.target)).toEqual(['escalate:1']);
      expect(await store.escalateDue(T0 + 99_000, 100)).toBe(0);
    });

    it('takes at most `limit` steps per call, the earliest first', async () => {
      const a = await ask();
      const b = await ask({ createdAt: T0 + 1000 });
      expect(await store.escalateDue(T0 + 30_000, 1)).toBe(1);
      const leased = await store.outbox.leaseDue(T0 + 30_000, 10, 60_000, 'w');
      expect(leased.map((i) => i.id)).toEqual([`${a.id}:escalate:0`]);
      expect(await store.escalateDue(T0 + 30_000, 100)).toBe(3);
      expect(b.escalation).toHaveLength(2);
    });

    for (const how of ['answered', 'cancelled', 'timed out'] as const) {
      it(`fires nothing once the question is ${how}`, async () => {
        const spec = await ask();
        if (how === 'timed out') {
          expect(await store.expireDue(T0 + 3600_000, 60_000, 100)).toBe(1);
        } else {
          const r = await store.claim(spec.id, {
            status: how === 'answered' ? 'ANSWERED' : 'CANCELLED',
            answer: how === 'answered' ? true : null,
            answeredBy: 'ops',
            now: T0 + 5_000,
            retentionMs: 60_000,
          });
          expect(r.kind).toBe('won');
        }
        expect(await store.escalateDue(T0 + 3600_000, 100)).toBe(0);
        const items = await store.outbox.leaseDue(T0 + 3600_000, 100, 60_000, 'w');
        expect(items.filter((i) => i.target.startsWith('escalate:'))).toEqual([]);
      });
    }

    it('records a fired step once and announces UPDATED with the question still pending', async () => {
      const spec = await ask();
      const remind = { action: 'REMIND', channel: null } as const;
      expect(
        await store.recordEscalation(spec.id, 0, { firedAt: T0 + 10_001, outcome: 'DELIVERED' }, remind),
      ).toBe(true);
      expect(
        await store.recordEscalation(spec.id, 0, { firedAt: T0 + 10_002, outcome: 'FAILED: x' }, remind),
      ).toBe(false);
      expect(
        await store.recordEscalation(
          spec.id,
          1,
          { firedAt: T0 + 20_000, outcome: 'FAILED: oncall-sms: 500' },
          { action: 'REROUTE', channel: 'oncall-sms' },
        ),
      ).toBe(true);
      expect([...(await store.escalations(spec.id))]).toEqual([
        [0, { firedAt: T0 + 10_001, outcome: 'DELIVERED' }],
        [1, { firedAt: T0 + 20_000, outcome: 'FAILED: oncall-sms: 500' }],
      ]);
      // One audit entry per recorded step, written by the same step (API.md §17).
      await store.audit.chain();
      const page = await store.audit.page({
        questionId: spec.id,
        first: 10,
        types: ['REMINDED', 'ESCALATED'],
      });
      expect(page.entries.map((e) => [e.type, e.detail])).toEqual([
        ['REMINDED', { step: 0, action: 'REMIND', delivered: true }],
        ['ESCALATED', { step: 1, action: 'REROUTE', delivered: false, channel: 'oncall-sms' }],
      ]);
      const d = deferred<StoreEvent>();
      const seen = events.find((e) => e.type === 'UPDATED');
      if (seen) d.resolve(seen);
      else await store.listen({ event: (e) => e.type === 'UPDATED' && d.resolve(e), resync() {} });
      const ev = await d.promise;
      expect(ev.question).toMatchObject({ id: spec.id, status: 'PENDING', escalation: LADDER });
      expect(events.filter((e) => e.type === 'UPDATED').length).toBeGreaterThanOrEqual(1);
    });

    it('records nothing for a question that is gone', async () => {
      expect(
        await store.recordEscalation(
          'nope',
          0,
          { firedAt: T0, outcome: 'DELIVERED' },
          { action: 'REMIND', channel: null },
        ),
      ).toBe(false);
      expect((await store.escalations('nope')).size).toBe(0);
    });

    it('adds a further callback ticket only while the question is pending', async () => {
      const spec = await ask({ createdAt: Date.now(), timeoutAt: Date.now() + 60_000 });
      expect(await store.addTicket(spec.id, 'a'.repeat(64))).toBe(true);
      expect((await store.questionForTicket('a'.repeat(64)))?.id).toBe(spec.id);
      await store.claim(spec.id, { status: 'CANCELLED', now: Date.now(), retentionMs: 60_000 });
      expect(await store.addTicket(spec.id, 'b'.repeat(64))).toBe(false);
      expect(await store.questionForTicket('b'.repeat(64))).toBeNull();
    });

    it('keeps a REROUTE place’s receipt beside the first, indexed within that channel', async () => {
      const spec = await ask({ createdAt: Date.now(), timeoutAt: Date.now() + 60_000 });
      expect(await store.deliveries.save(spec.id, { ref: 'S1', recipient: 'U1' }, 1)).toBe(true);
      expect(await store.deliveries.save(spec.id, { ref: 'K7', recipient: '+1555' }, 2, 'oncall-sms')).toBe(
        true,
      );
      expect(await store.deliveries.get(spec.id)).toEqual({
        delivery: { ref: 'S1', recipient: 'U1' },
        deliveredAt: 1,
      });
      expect(await store.deliveries.get(spec.id, 'ops')).toEqual({
        delivery: { ref: 'S1', recipient: 'U1' },
        deliveredAt: 1,
      });
      expect(await store.deliveries.get(spec.id, 'oncall-sms')).toEqual({
        delivery: { ref: 'K7', recipient: '+1555' },
        deliveredAt: 2,
      });
      expect(await store.deliveries.get(spec.id, 'elsewhere')).toBeUndefined();
      expect(await store.deliveries.byRef('oncall-sms', 'K7')).toBe(spec.id);
      expect(await store.deliveries.latestFor('oncall-sms', '+1555', 2)).toEqual({ id: spec.id, pending: 1 });
      expect(await store.deliveries.latestFor('oncall-sms', '+1555', 1)).toBeNull();
    });
  });
}

describe('escalation timers on one Redis shared by two instances', () => {
  it('moves every step of 100 questions exactly once while both race', async () => {
    const prefix = uniquePrefix();
    const pairs = [redisPair(inject('redisUrl')), redisPair(inject('redisUrl'))];
    const [a, b] = pairs.map((c) => createRedisStore({ redis: c.redis, subscriber: c.subscriber, prefix }));
    try {
      const specs = Array.from({ length: 100 }, (_, i) => laddered({ createdAt: T0 + i }));
      for (const spec of specs) expect((await a!.create(spec, opts(spec))).kind).toBe('created');
      let moved = 0;
      // Both instances tick at the same moments, 5 s apart, until past every step.
      for (let now = T0; now <= T0 + 30_000; now += 5_000) {
        const [x, y] = await Promise.all([a!.escalateDue(now, 7), b!.escalateDue(now, 7)]);
        moved += x + y;
        // Whatever a batch limit left behind goes in the next rounds.
        for (;;) {
          const [p, q] = await Promise.all([a!.escalateDue(now, 50), b!.escalateDue(now, 50)]);
          moved += p + q;
          if (p + q === 0) break;
        }
      }
      expect(moved).toBe(200);
      const leased = await a!.outbox.leaseDue(T0 + 30_000, 1000, 60_000, 'w');
      expect(new Set(leased.map((i) => i.id)).size).toBe(200);
    } finally {
      await a!.close();
      await b!.close();
      for (const c of pairs) await c.close();
    }
  });
});
