// Votes across two store instances on one Redis (API.md §15 races): each instance has its own
// connections, both share the key prefix, and 50 voters split between them with approvals: 3
// count exactly 3 votes; the decision is announced once and reaches both instances.
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { QuestionSpec } from '../../src/domain/question.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore, StoreEvent } from '../../src/store/types.ts';
import { deferred, redisPair, refundAction, specOf, uniquePrefix } from '../support/fixtures.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function instance(prefix: string): QuestionStore {
  const conn = redisPair(inject('redisUrl'));
  const store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix });
  closers.push(async () => {
    await store.close();
    await conn.close();
  });
  return store;
}

async function decisionSeen(store: QuestionStore, id: string): Promise<() => StoreEvent[]> {
  const seen: StoreEvent[] = [];
  const first = deferred<void>();
  await store.listen({
    event(e) {
      if (e.head.id !== id || e.type !== 'ANSWERED') return;
      seen.push(e);
      first.resolve();
    },
    resync() {},
  });
  return () => seen;
}

describe('votes on two instances sharing one Redis', () => {
  it('50 voters at once, split across both: exactly 3 counted, one decision', async () => {
    const prefix = uniquePrefix();
    const a = instance(prefix);
    const b = instance(prefix);
    const args = { id: 'ch_1' };
    const quorum = { approvals: 3, rejections: 20, voters: null };
    const spec: QuestionSpec = {
      ...specOf({ text: 'Refund?', format: 'APPROVAL' }),
      action: refundAction(args),
      quorum,
    };
    const seenA = await decisionSeen(a, spec.id);
    const seenB = await decisionSeen(b, spec.id);
    expect((await a.create(spec, { maxPending: 100, retentionMs: 60_000 })).kind).toBe('created');
    const now = Date.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).vote(spec.id, {
          vote: { by: `voter-${i}`, via: 'api', decision: 'APPROVED', note: null, at: now },
          quorum,
          answer: { decision: 'APPROVED', arguments: args },
          now,
          retentionMs: 60_000,
        }),
      ),
    );
    const kinds = results.map((r) => r.kind);
    expect(kinds.filter((k) => k === 'counted')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'decided')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'lost')).toHaveLength(47);
    const read = await b.get(spec.id);
    expect(read?.status).toBe('ANSWERED');
    expect(read?.votes).toHaveLength(3);
    // A marker after the decision: once both instances see it, the decision was delivered before.
    const marker = specOf({});
    const markerSeen = [deferred<void>(), deferred<void>()];
    for (const [i, s] of [a, b].entries()) {
      await s.listen({
        event(e) {
          if (e.head.id === marker.id) markerSeen[i]?.resolve();
        },
        resync() {},
      });
    }
    await a.create(marker, { maxPending: 100, retentionMs: 60_000 });
    await Promise.all(markerSeen.map((d) => d.promise));
    expect(seenA()).toHaveLength(1);
    expect(seenB()).toHaveLength(1);
  });
});
