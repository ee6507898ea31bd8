// The audit log's chaining off the claim's path (API.md §17, issue 46), on two instances (two
// stores, each with its own connections and chaining worker) and one Redis: claims write numbered
// drafts; the workers (one lease holder at a time) and the reads add the hash chain in batches.
// Whatever interleaves, the chain is gap-free, has no entry twice and verifies; a worker that dies
// mid-run leaves a chained prefix that the other instance continues, without rewriting it.
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { type AuditDraft, type AuditEntry, chainedAuditJson } from '../../src/domain/audit.ts';
import { createAuditChainer } from '../../src/engine/audit-chainer.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { createScriptRunner } from '../../src/store/redis/scripts.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { allEntries, expectChained } from '../store/audit-contract.ts';
import { redisPair, specOf, uniquePrefix } from '../support/fixtures.ts';

const CLAIMS = 100;
const opts = { maxPending: 10_000, retentionMs: 60_000 };
const quiet = { error() {}, warn() {}, info() {}, debug() {} } as never;

/** No gap and no duplicate: seq 1..n once each, and each question asked and answered once. */
function expectOnePerChange(entries: AuditEntry[], ids: string[]): void {
  expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: entries.length }, (_, i) => i + 1));
  const kinds = entries.map((e) => `${e.questionId} ${e.type}`);
  expect(new Set(kinds).size).toBe(kinds.length);
  expect(kinds.sort()).toEqual(ids.flatMap((id) => [`${id} ANSWERED`, `${id} ASKED`]).sort());
}

describe('chaining the audit log off the claim, two instances on one Redis', () => {
  let stores: [QuestionStore, QuestionStore];
  let conns: Redis[];
  let closers: (() => Promise<void>)[];
  let keyPrefix = '';
  beforeEach(() => {
    const one = redisPair(inject('redisUrl'));
    const two = redisPair(inject('redisUrl'));
    const p = uniquePrefix();
    conns = [one.redis, two.redis];
    closers = [one.close, two.close];
    stores = [
      createRedisStore({ redis: one.redis, subscriber: one.subscriber, prefix: p }),
      createRedisStore({ redis: two.redis, subscriber: two.subscriber, prefix: p }),
    ];
    keyPrefix = p;
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
    for (const c of closers) await c();
  });

  /** n questions asked on both instances in turn. */
  async function asked(n: number): Promise<string[]> {
    const specs = Array.from({ length: n }, () => specOf());
    await Promise.all(specs.map((s, i) => stores[i % 2]!.create(s, opts)));
    return specs.map((s) => s.id);
  }
  const answer = (store: QuestionStore, id: string) =>
    store.claim(id, {
      status: 'ANSWERED',
      answer: true,
      answeredBy: 'ops',
      now: Date.now(),
      retentionMs: 60_000,
    });

  it('100 claims at once on both, both workers and reads chaining meanwhile: one chain, no gap, no duplicate', async () => {
    const workers = stores.map((store) => createAuditChainer({ store, logger: quiet }));
    const ids = await asked(CLAIMS);
    expect(await workers[0]!.pass()).toBe(true);
    const passes: Promise<boolean>[][] = [[], []];
    await Promise.all(
      ids.map(async (id, i) => {
        const won = await answer(stores[(i + 1) % 2]!, id);
        expect(won.kind).toBe('won');
        if (i % 10 === 0) for (const w of [0, 1]) passes[w]!.push(workers[w]!.pass());
        if (i % 25 === 0) await stores[i % 2]!.audit.bounds();
      }),
    );
    const held = await Promise.all(passes.map((p) => Promise.all(p)));
    // One lease holder: the first worker kept it; the other never chained in the background.
    expect(held[0]!.every(Boolean)).toBe(true);
    expect(held[1]!.some(Boolean)).toBe(false);
    const [h1, h2] = await Promise.all(stores.map((s) => s.audit.chain()));
    expect(h1).toEqual(h2);
    expect(h1?.seq).toBe(CLAIMS * 2);
    const entries = await allEntries(stores[1], 37);
    expectChained(entries);
    expect(entries.at(-1)!.hash).toBe(h1!.hash);
    expectOnePerChange(entries, ids);
  });

  it('a worker that dies mid-run: its lease lapses, the other continues from its chained prefix, nothing rewritten', async () => {
    const [a, b] = stores;
    const dying = createAuditChainer({ store: a, logger: quiet, leaseMs: 60_000 });
    const survivor = createAuditChainer({ store: b, logger: quiet, leaseMs: 60_000 });
    const ids = await asked(CLAIMS);
    await Promise.all(ids.map((id, i) => answer(stores[i % 2]!, id)));
    expect(await dying.pass()).toBe(true);
    const before = await allEntries(a, 500);
    expect(before.length).toBe(CLAIMS * 2);
    // More changes, then the dying worker's next run: it writes its first batch (150 entries)
    // exactly as audit.ts's chain does (audit-chain.lua writes a batch whole or not at all),
    // and dies before the next batch, holding the lease.
    const more = await asked(CLAIMS);
    await Promise.all(more.map((id, i) => answer(stores[i % 2]!, id)));
    const head = before.at(-1)!;
    const redis = conns[0]!;
    const seqs = Array.from({ length: 150 }, (_, i) => String(head.seq + 1 + i));
    const drafts = await redis.hmget(`${keyPrefix}audit:e`, ...seqs);
    let prev = head.hash;
    const pairs: (string | number)[] = [];
    drafts.forEach((raw, i) => {
      const e = chainedAuditJson(JSON.parse(raw!) as AuditDraft, prev);
      prev = e.hash;
      pairs.push(head.seq + 1 + i, e.json);
    });
    const run = createScriptRunner(redis, keyPrefix);
    expect(await run('auditChain', [head.seq, head.hash, prev, ...pairs])).toBe(1);
    await stores[0].close();
    await closers[0]!();
    // The survivor's worker finds the lease held and leaves the tail to its holder…
    expect(await survivor.pass()).toBe(false);
    expect(await conns[1]!.get(`${keyPrefix}audit:head`)).toBe(`${head.seq + 150} ${prev}`);
    // …until it lapses (its 60 s, shortened here), then takes it and chains the rest.
    await conns[1]!.pexpire(`${keyPrefix}audit:chainer`, 1);
    let took = false;
    for (let i = 0; i < 1000 && !took; i++) took = await survivor.pass();
    expect(took).toBe(true);
    expect(await conns[1]!.get(`${keyPrefix}audit:head`)).toMatch(new RegExp(`^${CLAIMS * 4} sha256:`));
    const entries = await allEntries(b, 500);
    expectChained(entries);
    expectOnePerChange(entries, [...ids, ...more]);
    // The chained prefix, the dead worker's batch included, kept its hashes.
    expect(entries.slice(0, before.length)).toEqual(before);
    expect(entries[head.seq + 149]!.hash).toBe(prev);
  });
});
