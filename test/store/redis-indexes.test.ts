// The Redis listing indexes: kept consistent with the records under racing writers, emptied
// by prune after retention, healed when a record vanished, and built for data stored earlier.
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import type { QuestionStatus } from '../../src/domain/question.ts';
import { createRedisStore, type RedisQuestionStore } from '../../src/store/redis/redis-store.ts';
import type { StoreEvent } from '../../src/store/types.ts';
import { deferred, redisPair, specOf, uniquePrefix } from '../support/fixtures.ts';
import { expectPages, FILTER_SHAPES, seedListing } from './listing-contract.ts';

const opts = { maxPending: 10_000, retentionMs: 60_000 };

describe('redis listing indexes', () => {
  let conn: ReturnType<typeof redisPair>;
  let redis: Redis;
  let prefix: string;
  let store: RedisQuestionStore;

  beforeEach(() => {
    conn = redisPair(inject('redisUrl'));
    redis = conn.redis;
    prefix = uniquePrefix();
    store = createRedisStore({ redis, subscriber: conn.subscriber, prefix });
  });

  afterEach(async () => {
    await store.close();
    await conn.close();
  });

  /** Every key of this deployment, without the prefix. */
  async function keys(): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      out.push(...batch.map((k) => k.slice(prefix.length)));
      cursor = next;
    } while (cursor !== '0');
    return out.sort();
  }

  /** Index keys (and their sizes) other than the two that always exist once used. */
  async function indexSizes(): Promise<Record<string, number>> {
    const sizes: Record<string, number> = {};
    for (const k of await keys()) {
      if (k.startsWith('ix:') || k === 'pending' || k === 'all') sizes[k] = await redis.zcard(prefix + k);
    }
    return sizes;
  }

  it('leaves no index entry, membership or history behind after retention', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const spec = specOf({
        askedBy: `a${i % 3}`,
        audience: i % 2 ? 'u' : i % 4 === 0 ? 'oncall:r' : null,
        ...(i % 4 === 0 ? { routedTo: `p${i % 3}` } : {}),
        groupId: i % 3 ? `g${i}` : null,
        channel: i % 4 ? 'slack' : null,
      });
      await store.create(spec, opts);
      ids.push(spec.id);
    }
    const statuses = ['ANSWERED', 'CANCELLED', 'TIMED_OUT'] as const;
    for (const [i, id] of ids.entries()) {
      await store.claim(id, { status: statuses[i % 3]!, now: Date.now(), retentionMs: 50 });
    }
    // One pending question whose record vanished (Redis evicted it): the reaper drops it too (an
    // on-call one: its entry also remembers whom it was routed to, and its usage).
    const lost = specOf({
      askedBy: 'a9',
      audience: 'oncall:r',
      routedTo: 'p9',
      createdAt: Date.now() - 2000,
      timeoutAt: Date.now() - 1,
    });
    await store.create(lost, opts);
    await redis.del(`${prefix}q:${lost.id}`);
    expect(await store.expireDue(Date.now(), 50, 100)).toBe(0);

    await vi.waitFor(
      async () => {
        await store.prune(Date.now(), 50);
        expect(await store.getMany(ids)).toEqual(ids.map(() => null));
        expect(await indexSizes()).toEqual({});
      },
      { timeout: 5000, interval: 20 },
    );
    // What is left are the usage counters and the audit log (kept longer than the questions, on
    // its own retention), nothing per question; the vanished pending one gave its usage back.
    expect((await keys()).filter((k) => !k.startsWith('held:') && !k.startsWith('audit:'))).toEqual([]);
    expect(await redis.hgetall(`${prefix}held:n`)).toEqual({});
    expect(await redis.get(`${prefix}held:total`)).toBe('0');
    expect((await store.list({}, { first: 10 })).totalCount).toBe(0);
  });

  it('skips, uncounts and unindexes a question whose record vanished before prune', async () => {
    const all = await seedListing(store);
    const gone = all.filter((_, i) => i % 5 === 1);
    for (const a of gone) await redis.del(`${prefix}q:${a.spec.id}`);
    const left = all.filter((a) => !gone.includes(a));
    // The whole-history page finds every vanished one, so every count after it is exact.
    const page = await store.list({}, { first: 100 });
    expect(page.totalCount).toBe(left.length);
    expect(page.items.map((q) => q.id).sort()).toEqual(left.map((a) => a.spec.id).sort());
    for (const a of gone) expect(await redis.hexists(`${prefix}ixof`, a.spec.id)).toBe(0);
    const sizes = await indexSizes();
    expect(sizes.all).toBe(left.length);
    const byStatus = (s: QuestionStatus) => left.filter((a) => a.status === s).length;
    expect(sizes.pending ?? 0).toBe(byStatus('PENDING'));
    expect(sizes['ix:st:ANSWERED'] ?? 0).toBe(byStatus('ANSWERED'));
    expect(await store.countPending()).toBe(byStatus('PENDING'));
  });

  it('keeps indexes equal to the records under 100 racing creates and resolutions', async () => {
    const specs = Array.from({ length: 100 }, (_, i) =>
      specOf({ askedBy: `a${i % 4}`, audience: i % 3 ? `u${i % 2}` : null, createdAt: Date.now() - (i % 7) }),
    );
    const statuses = ['ANSWERED', 'CANCELLED', 'TIMED_OUT'] as const;
    await Promise.all(
      specs.map(async (s, i) => {
        await store.create(s, opts);
        if (i % 4 === 3) return;
        // Two resolutions race for each question and a reaper runs meanwhile: one wins.
        await Promise.all([
          store.claim(s.id, { status: statuses[i % 3]!, now: Date.now(), retentionMs: 60_000 }),
          store.claim(s.id, { status: statuses[(i + 1) % 3]!, now: Date.now(), retentionMs: 60_000 }),
          store.expireDue(Date.now(), 60_000, 10),
        ]);
      }),
    );
    const records = (await store.getMany(specs.map((s) => s.id))).map((q) => q!);
    const count = (pred: (q: (typeof records)[number]) => boolean) => records.filter(pred).length;
    const sizes = await indexSizes();
    expect(sizes.all).toBe(100);
    expect(sizes.pending).toBe(count((q) => q.status === 'PENDING'));
    expect(await store.countPending()).toBe(25);
    for (const s of ['ANSWERED', 'CANCELLED', 'TIMED_OUT'] as const) {
      expect(sizes[`ix:st:${s}`] ?? 0).toBe(count((q) => q.status === s));
    }
    for (const st of ['PENDING', 'ANSWERED', 'CANCELLED', 'TIMED_OUT'] as const) {
      for (let a = 0; a < 4; a++) {
        const n = count((q) => q.status === st && q.askedBy === `a${a}`);
        expect(sizes[`ix:by:${st}:a${a}`] ?? 0).toBe(n);
        expect((await store.list({ status: [st], askedBy: `a${a}` }, { first: 1 })).totalCount).toBe(n);
      }
      for (const u of ['u0', 'u1']) {
        expect(sizes[`ix:aud:${st}:${u}`] ?? 0).toBe(count((q) => q.status === st && q.audience === u));
      }
    }
    expect(await redis.hlen(`${prefix}ixof`)).toBe(100);
  });

  it('builds the indexes of questions stored before they existed, once, in batches', async () => {
    const all = await seedListing(store);
    const wants = await Promise.all(FILTER_SHAPES.map((f) => store.list(f, { first: 100 })));
    // What an earlier version left: records, `all`, `pending`, history; no other index.
    const stale = (await keys()).filter((k) => k.startsWith('ix:') || k === 'ixof' || k === 'ixv');
    await redis.del(...stale.map((k) => prefix + k));
    // Nor did it keep an on-call question's routedTo beside its spec (index version 1).
    for (const a of all) await redis.hdel(`${prefix}q:${a.spec.id}`, 'rt');
    const lost = all[4]!.spec.id;
    await redis.del(`${prefix}q:${lost}`);

    expect(await store.ensureIndexes()).toBe(all.length);
    expect(await store.ensureIndexes()).toBe(0);
    for (const [i, f] of FILTER_SHAPES.entries()) {
      const want = wants[i]!.items.map((q) => q.id).filter((id) => id !== lost);
      await expectPages(store, f, want, 7);
    }
    expect(await redis.zscore(`${prefix}all`, lost)).toBeNull();
    expect(await redis.exists(`${prefix}ixv:at`)).toBe(0);
  });

  it('announces a question stored before announcement heads whole, and one stored now by its head', async () => {
    const got = deferred<StoreEvent>();
    const old = specOf({ format: 'EXTERNAL' });
    const now = specOf({ format: 'EXTERNAL' });
    const seen: StoreEvent[] = [];
    await store.listen({
      event(e) {
        if (e.type !== 'ANSWERED') return;
        seen.push(e);
        if (seen.length === 2) got.resolve(e);
      },
      resync() {},
    });
    for (const s of [old, now]) expect((await store.create(s, opts)).kind).toBe('created');
    await redis.hdel(`${prefix}q:${old.id}`, 'fmt');
    for (const s of [old, now]) {
      const r = await store.claim(s.id, {
        status: 'ANSWERED',
        answer: { ok: true },
        answeredBy: 'ops',
        now: Date.now(),
        retentionMs: 60_000,
      });
      expect(r.kind).toBe('won');
    }
    await got.promise;
    for (const [i, s] of [old, now].entries()) {
      const e = seen[i]!;
      expect(e.head.id).toBe(s.id);
      expect(e.head.format).toBe('EXTERNAL');
      expect(e.followUps).toBe(i === 0 ? undefined : false);
      expect(e.question).toEqual(await store.get(s.id));
    }
  });
});
