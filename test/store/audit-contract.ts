// The audit log's store contract (API.md §17): one suite for the memory and Redis stores.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntry, auditHashOf } from '../../src/domain/audit.ts';
import { jcsDigest } from '../../src/domain/digest.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { specOf } from '../support/fixtures.ts';

export interface AuditHarness {
  store: QuestionStore;
  close(): Promise<void>;
}

const opts = { maxPending: 10_000, retentionMs: 60_000 };

/** Every kept entry, oldest first, read page by page. */
export async function allEntries(store: QuestionStore, pageSize = 100): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  let after = 0;
  for (;;) {
    const p = await store.audit.page({ afterSeq: after, first: pageSize });
    out.push(...p.entries);
    after = p.lastSeq;
    if (!p.hasMore) return out;
  }
}

/** The chain checks: seq rises by one, every hash is right, every prev is the hash before. */
export function expectChained(entries: AuditEntry[], firstPrev: string | null = null): void {
  let prev = firstPrev;
  for (const [i, e] of entries.entries()) {
    if (i > 0) expect(e.seq).toBe(entries[i - 1]!.seq + 1);
    expect(e.prev).toBe(prev);
    expect(e.hash).toBe(auditHashOf(e));
    expect(e.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    prev = e.hash;
  }
}

export function auditContract(name: string, make: () => Promise<AuditHarness>): void {
  describe(`audit log contract (${name})`, () => {
    let h: AuditHarness;
    let store: QuestionStore;

    beforeEach(async () => {
      h = await make();
      store = h.store;
    });
    afterEach(async () => {
      await h.close();
    });

    it('starts empty: no head, nothing to read', async () => {
      expect(await store.audit.bounds()).toEqual({ first: 1, head: null });
      expect((await store.audit.page({ first: 10 })).entries).toEqual([]);
    });

    it('writes one chained entry per change, with who, the door and digests only', async () => {
      const now = Date.now();
      const a = specOf({ text: 'Deploy v2?', createdAt: now });
      const b = specOf({ format: 'TEXT', createdAt: now });
      const c = specOf({ createdAt: now, timeoutAt: now + 10 });
      for (const s of [a, b, c]) await store.create(s, opts);
      await store.claim(a.id, {
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'ops',
        now,
        retentionMs: 60_000,
      });
      await store.claim(b.id, {
        status: 'CANCELLED',
        actor: 'boss',
        cancelReason: 'no',
        now,
        retentionMs: 60_000,
      });
      expect(await store.expireDue(now + 10, 60_000, 10)).toBe(1);
      await store.audit.append({
        type: 'CALLBACK_REFUSED',
        questionId: a.id,
        actor: null,
        via: 'callback',
        detail: { reason: 'signature' },
        at: now + 20,
      });

      const entries = await allEntries(store);
      expectChained(entries);
      expect(entries.map((e) => [e.seq, e.type, e.questionId])).toEqual([
        [1, 'ASKED', a.id],
        [2, 'ASKED', b.id],
        [3, 'ASKED', c.id],
        [4, 'ANSWERED', a.id],
        [5, 'CANCELLED', b.id],
        [6, 'TIMED_OUT', c.id],
        [7, 'CALLBACK_REFUSED', a.id],
      ]);
      expect(entries[0]).toMatchObject({
        actor: 'agent',
        via: 'api',
        at: new Date(now).toISOString(),
        detail: { format: 'CONFIRM', textDigest: jcsDigest('Deploy v2?') },
      });
      expect(entries[3]).toMatchObject({
        actor: 'ops',
        via: 'api',
        detail: { format: 'CONFIRM', answerDigest: jcsDigest(true), decision: 'APPROVED' },
      });
      expect(entries[4]).toMatchObject({ actor: 'boss', via: 'api', detail: { format: 'TEXT' } });
      expect(entries[5]).toMatchObject({ actor: null, via: null, detail: { format: 'CONFIRM' } });
      expect(entries[6]).toMatchObject({ via: 'callback', detail: { reason: 'signature' } });
      expect(await store.audit.bounds()).toEqual({ first: 1, head: { seq: 7, hash: entries[6]!.hash } });
    });

    it('records the callback door, channel answers and deliveries, and never a sensitive answer', async () => {
      const now = Date.now();
      const ext = specOf({ format: 'EXTERNAL', createdAt: now });
      const chan = specOf({ format: 'TEXT', channel: 'ops-slack', createdAt: now });
      const secret = specOf({ format: 'TEXT', sensitive: true, createdAt: now });
      const failed = specOf({ channel: 'ops-slack', createdAt: now });
      await store.create(ext, { ...opts, ticketHash: 'a'.repeat(64) });
      for (const s of [chan, secret, failed]) await store.create(s, opts);
      const r = await store.ticketStep('a'.repeat(64), {
        answer: { answer: { ok: 1 }, answeredBy: 'callback', now, retentionMs: 60_000 },
      });
      expect(r.kind).toBe('won');
      expect(await store.deliveries.save(chan.id, { ref: 'm1' }, now)).toBe(true);
      expect(await store.deliveries.save(failed.id, null)).toBe(true);
      await store.claim(chan.id, {
        status: 'ANSWERED',
        answer: 'hunter-reply',
        answeredBy: 'ops-slack:U1',
        now,
        retentionMs: 60_000,
      });
      await store.claim(secret.id, {
        status: 'ANSWERED',
        answer: null,
        reply: 'the-secret',
        answeredBy: 'ops',
        now,
        retentionMs: 60_000,
      });
      const entries = await allEntries(store);
      expectChained(entries);
      const of = (id: string, type: string) => entries.find((e) => e.questionId === id && e.type === type);
      expect(of(ext.id, 'ANSWERED')).toMatchObject({
        actor: 'callback',
        via: 'callback',
        detail: { format: 'EXTERNAL', answerDigest: jcsDigest({ ok: 1 }) },
      });
      expect(of(chan.id, 'DELIVERED')).toMatchObject({
        via: 'channel:ops-slack',
        detail: { channel: 'ops-slack' },
      });
      expect(of(failed.id, 'DELIVERY_FAILED')).toMatchObject({ detail: { channel: 'ops-slack' } });
      expect(of(chan.id, 'ANSWERED')).toMatchObject({ actor: 'ops-slack:U1', via: 'channel:ops-slack' });
      expect(of(chan.id, 'ANSWERED')!.detail).not.toHaveProperty('decision');
      expect(of(secret.id, 'ANSWERED')!.detail).toEqual({ format: 'TEXT' });
      const text = JSON.stringify(entries);
      expect(text).not.toContain('the-secret');
      expect(text).not.toContain('hunter-reply');
      expect(text).not.toContain('a'.repeat(64));
    });

    it('an answer given in an MCP client goes through the door mcp', async () => {
      const s = specOf();
      await store.create(s, opts);
      await store.claim(s.id, {
        status: 'ANSWERED',
        answer: false,
        answeredBy: 'mcp:agent',
        now: Date.now(),
        retentionMs: 60_000,
      });
      const [, answered] = (await store.audit.page({ first: 10 })).entries;
      expect(answered).toMatchObject({ actor: 'mcp:agent', via: 'mcp', detail: { decision: 'REJECTED' } });
    });

    it('a claim that loses writes no entry; a late answer writes the timeout only', async () => {
      const now = Date.now();
      const s = specOf({ createdAt: now, timeoutAt: now + 5 });
      await store.create(s, opts);
      const late = await store.claim(s.id, {
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'ops',
        now: now + 5,
        retentionMs: 60_000,
      });
      expect(late.kind).toBe('lost');
      await store.claim(s.id, { status: 'CANCELLED', now: now + 6, retentionMs: 60_000 });
      expect((await allEntries(store)).map((e) => e.type)).toEqual(['ASKED', 'TIMED_OUT']);
    });

    it('pages oldest first and filters by question, type and time', async () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        const s = specOf({ createdAt: now + i * 1000, timeoutAt: now + 10_000_000 });
        ids.push(s.id);
        await store.create(s, opts);
      }
      await store.claim(ids[3]!, { status: 'CANCELLED', now: now + 100_000, retentionMs: 60_000 });
      const p1 = await store.audit.page({ first: 10 });
      expect(p1.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(p1.hasMore).toBe(true);
      const p2 = await store.audit.page({ first: 10, afterSeq: p1.lastSeq });
      expect(p2.entries[0]!.seq).toBe(11);
      const mine = await store.audit.page({ first: 10, questionId: ids[3]! });
      expect(mine.entries.map((e) => e.type)).toEqual(['ASKED', 'CANCELLED']);
      expect(mine.hasMore).toBe(false);
      const cancels = await store.audit.page({ first: 10, types: ['CANCELLED'] });
      expect(cancels.entries.map((e) => e.questionId)).toEqual([ids[3]]);
      const window = await store.audit.page({ first: 100, since: now + 5000, until: now + 8000 });
      expect(window.entries.map((e) => e.seq)).toEqual([6, 7, 8]);
    });

    it('trims from the oldest end only and keeps the first kept entry chained to the trimmed one', async () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      for (let i = 0; i < 6; i++) await store.create(specOf({ createdAt: now + i * 1000 }), opts);
      const before = await allEntries(store);
      expect(await store.audit.trim(now + 3000)).toBe(3);
      expect(await store.audit.trim(now + 3000)).toBe(0);
      const after = await allEntries(store);
      expect(after.map((e) => e.seq)).toEqual([4, 5, 6]);
      expect(after[0]!.prev).toBe(before[2]!.hash);
      expectChained(after, before[2]!.hash);
      expect((await store.audit.bounds()).first).toBe(4);
      // New entries go on chaining after the kept ones.
      await store.create(specOf({ createdAt: now + 9000 }), opts);
      expectChained(await allEntries(store), before[2]!.hash);
    });
    it('chains in batches after the change: a read chains the pending tail onto the chained prefix first', async () => {
      const now = Date.now();
      const specs = Array.from({ length: 6 }, () => specOf({ createdAt: now }));
      for (const s of specs.slice(0, 3)) await store.create(s, opts);
      const prefix = await store.audit.chain();
      expect(prefix?.seq).toBe(3);
      // A pending tail: drafts after the chained prefix, not hashed by their changes.
      for (const s of specs.slice(3)) await store.create(s, opts);
      const claims = specs.map((s) =>
        store.claim(s.id, { status: 'ANSWERED', answer: true, answeredBy: 'ops', now, retentionMs: 60_000 }),
      );
      // Chaining and reading while claims append: every entry is read chained, none twice.
      const [, , bounds] = await Promise.all([
        Promise.all(claims),
        store.audit.chain(),
        store.audit.bounds(),
      ]);
      expect(bounds.head!.seq).toBeGreaterThanOrEqual(6);
      const entries = await allEntries(store, 4);
      expectChained(entries);
      expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(entries[2]!.hash).toBe(prefix!.hash);
      expect(await store.audit.chain()).toEqual({ seq: 12, hash: entries[11]!.hash });
    });

    it('the chaining lease: one owner at a time, renewed by its holder, taken once it lapses', async () => {
      expect(await store.audit.lease('a', 60_000)).toBe(true);
      expect(await store.audit.lease('b', 60_000)).toBe(false);
      expect(await store.audit.lease('a', 1)).toBe(true);
      // The holder renewed it for 1 ms: once that has passed, the other takes it.
      const until = Date.now() + 5;
      while (Date.now() < until) await store.audit.bounds();
      expect(await store.audit.lease('b', 60_000)).toBe(true);
      expect(await store.audit.lease('a', 60_000)).toBe(false);
    });
  });
}
