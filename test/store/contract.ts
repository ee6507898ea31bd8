// The QuestionStore contract: one suite, run unchanged against the memory and Redis stores.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { QuestionSpec } from '../../src/domain/question.ts';
import {
  type ClaimInput,
  MAX_SEEN_KEY_CHARS,
  type QuestionStore,
  type StoreEvent,
} from '../../src/store/types.ts';
import { specOf } from '../support/fixtures.ts';
import { recordEvents } from './event-log.ts';

export interface StoreHarness {
  store: QuestionStore;
  close(): Promise<void>;
}

/** Store settings a test may change from their defaults. */
export interface StoreHarnessOptions {
  replyGraceMs?: number;
}

const opts = { maxPending: 1000, retentionMs: 60_000 };
const answer = (value: unknown, now = Date.now()): ClaimInput => ({
  status: 'ANSWERED',
  answer: value,
  answeredBy: 'ops',
  now,
  retentionMs: 60_000,
});

export function storeContract(name: string, make: (o?: StoreHarnessOptions) => Promise<StoreHarness>): void {
  describe(`QuestionStore contract (${name})`, () => {
    let h: StoreHarness;
    let store: QuestionStore;
    let events: StoreEvent[];
    let nextEvent: (pred: (e: StoreEvent) => boolean) => Promise<StoreEvent>;

    beforeEach(async () => {
      h = await make();
      store = h.store;
      ({ events, nextEvent } = await recordEvents(store));
    });

    afterEach(async () => {
      await h.close();
    });

    async function create(over: Partial<QuestionSpec> = {}): Promise<QuestionSpec> {
      const spec = specOf(over);
      const r = await store.create(spec, opts);
      expect(r.kind).toBe('created');
      return spec;
    }

    it('creates a pending question and announces ASKED with it', async () => {
      const spec = await create({
        text: 'Deploy?',
        media: [{ kind: 'IMAGE', url: 'https://x.example/a.png' }],
      });
      const got = await store.get(spec.id);
      expect(got).toMatchObject({ ...spec, status: 'PENDING', answer: null, answeredBy: null });
      const ev = await nextEvent((e) => e.question.id === spec.id);
      expect(ev.type).toBe('ASKED');
      expect(ev.question).toEqual(got);
    });

    it('announces each resolution with a head that agrees with its question', async () => {
      const withFollowUps = specOf({ format: 'CONFIRM' });
      await store.create(withFollowUps, { ...opts, followUps: ['webhook:runs'] });
      const plain = await create({ format: 'EXTERNAL' });
      const t = Date.now();
      expect((await store.claim(withFollowUps.id, answer(true, t))).kind).toBe('won');
      expect(
        (await store.claim(plain.id, { status: 'CANCELLED', cancelReason: 'x', now: t, retentionMs: 60_000 }))
          .kind,
      ).toBe('won');
      for (const [spec, type, followUps] of [
        [withFollowUps, 'ANSWERED', true],
        [plain, 'CANCELLED', false],
      ] as const) {
        const ev = await nextEvent((e) => e.type === type && e.head.id === spec.id);
        const { id, format, createdAt, answeredAt, closedAt } = ev.question;
        expect(ev.head).toMatchObject({ id, format, createdAt, answeredAt, closedAt });
        expect(ev.question).toEqual(await store.get(spec.id));
        // A store that says whether follow-ups were enqueued says it right.
        if (ev.followUps !== undefined) expect(ev.followUps).toBe(followUps);
      }
    });

    it('returns null for an unknown id', async () => {
      expect(await store.get('nope')).toBeNull();
      expect(await store.getMany(['nope'])).toEqual([null]);
    });

    it('statuses: each question as it stands, null for one that does not exist, in order', async () => {
      const open = await create();
      const answered = await create();
      const cancelled = await create();
      expect((await store.claim(answered.id, answer(true))).kind).toBe('won');
      const cancel = { status: 'CANCELLED', now: Date.now(), retentionMs: 60_000 } as const;
      expect((await store.claim(cancelled.id, cancel)).kind).toBe('won');
      expect(await store.statuses([open.id, 'nope', answered.id, cancelled.id])).toEqual([
        'PENDING',
        null,
        'ANSWERED',
        'CANCELLED',
      ]);
      expect(await store.statuses([])).toEqual([]);
    });

    it('keeps answers byte-exact: numbers, empty arrays and objects survive', async () => {
      const spec = await create({ format: 'FORM', schema: { type: 'object' } });
      const value = { n: 12345678901234, f: 0.1, list: [], obj: {}, s: 'é"\\' };
      const r = await store.claim(spec.id, answer(value));
      expect(r.kind).toBe('won');
      expect((await store.get(spec.id))?.answer).toEqual(value);
    });

    it('an idempotency key names the same question for the same asker only', async () => {
      const a = await create({ idempotencyKey: 'k1' });
      const again = await store.create(specOf({ idempotencyKey: 'k1' }), opts);
      expect(again).toMatchObject({ kind: 'existing', question: { id: a.id } });
      const other = await store.create(specOf({ idempotencyKey: 'k1', askedBy: 'agent2' }), opts);
      expect(other.kind).toBe('created');
    });

    it('an idempotency key cannot collide across askers that a joined string would merge', async () => {
      const a = await create({ askedBy: 'agent\nx', idempotencyKey: 'k' });
      const other = await store.create(specOf({ askedBy: 'agent', idempotencyKey: 'x\nk' }), opts);
      expect(other.kind).toBe('created');
      const again = await store.create(specOf({ askedBy: 'agent\nx', idempotencyKey: 'k' }), opts);
      expect(again).toMatchObject({ kind: 'existing', question: { id: a.id } });
    });

    it('an idempotency key still names the question after it is resolved', async () => {
      const a = await create({ idempotencyKey: 'k2' });
      await store.claim(a.id, { status: 'CANCELLED', now: Date.now(), retentionMs: 60_000 });
      const again = await store.create(specOf({ idempotencyKey: 'k2' }), opts);
      expect(again).toMatchObject({ kind: 'existing', question: { id: a.id, status: 'CANCELLED' } });
    });

    it('joinWhilePending: the key joins a PENDING question only; a resolved one is left and the key moves on', async () => {
      const join = { ...opts, joinWhilePending: true };
      const a = await create({ idempotencyKey: 'k3' });
      expect(await store.create(specOf({ idempotencyKey: 'k3' }), join)).toMatchObject({
        kind: 'existing',
        question: { id: a.id, status: 'PENDING' },
      });
      await store.claim(a.id, answer(true));
      const b = await store.create(specOf({ idempotencyKey: 'k3' }), join);
      expect(b.kind).toBe('created');
      const bId = (b as { question: { id: string } }).question.id;
      expect(bId).not.toBe(a.id);
      expect(await store.create(specOf({ idempotencyKey: 'k3' }), join)).toMatchObject({
        kind: 'existing',
        question: { id: bId },
      });
      // Without the option the key names the newest question, as before.
      expect(await store.create(specOf({ idempotencyKey: 'k3' }), opts)).toMatchObject({
        question: { id: bId },
      });
    });

    it('enforces maxPending at the limit and writes nothing past it', async () => {
      const limited = { ...opts, maxPending: 3 };
      for (let i = 0; i < 3; i++) expect((await store.create(specOf(), limited)).kind).toBe('created');
      const over = specOf();
      expect(await store.create(over, limited)).toEqual({ kind: 'limit', limit: 'pending' });
      expect(await store.get(over.id)).toBeNull();
      expect((await store.pending({})).length).toBe(3);
      const first = (await store.pending({}))[0]!;
      await store.claim(first.id, answer(true));
      expect((await store.create(specOf(), limited)).kind).toBe('created');
    });

    it('100 concurrent creates at maxPending 10: exactly 10 created', async () => {
      const results = await Promise.all(
        Array.from({ length: 100 }, () => store.create(specOf(), { ...opts, maxPending: 10 })),
      );
      expect(results.filter((r) => r.kind === 'created')).toHaveLength(10);
      expect(results.filter((r) => r.kind === 'limit')).toHaveLength(90);
    });

    it('claim: exactly one of 100 concurrent answers wins', async () => {
      const spec = await create();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => store.claim(spec.id, answer(i % 2 === 0))),
      );
      const won = results.filter((r) => r.kind === 'won');
      expect(won).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'lost')).toHaveLength(99);
      const final = await store.get(spec.id);
      expect(final?.status).toBe('ANSWERED');
      expect(won[0]!.kind === 'won' && won[0]!.question.answer).toBe(final?.answer);
      for (const r of results) if (r.kind === 'lost') expect(r.question.status).toBe('ANSWERED');
      const answered = events.filter((e) => e.type === 'ANSWERED' && e.question.id === spec.id);
      await nextEvent((e) => e.type === 'ANSWERED' && e.question.id === spec.id);
      expect(answered.length).toBeLessThanOrEqual(1);
    });

    it('answer, timeout and cancel racing resolve to exactly one outcome', async () => {
      for (let round = 0; round < 20; round++) {
        const spec = await create();
        const now = Date.now();
        const claims: ClaimInput[] = [
          answer('x', now),
          { status: 'TIMED_OUT', now, retentionMs: 60_000 },
          { status: 'CANCELLED', cancelReason: 'no longer needed', now, retentionMs: 60_000 },
        ];
        const results = await Promise.all([...claims, ...claims].map((c) => store.claim(spec.id, c)));
        const winners = results.filter((r) => r.kind === 'won');
        expect(winners).toHaveLength(1);
        const final = await store.get(spec.id);
        expect(winners[0]!.kind === 'won' && winners[0]!.question.status).toBe(final?.status);
      }
    });

    it('claim of an unknown question is missing', async () => {
      expect(await store.claim('nope', answer(true))).toEqual({ kind: 'missing' });
    });

    it('a claim past the deadline times the question out instead', async () => {
      const spec = await create({ createdAt: Date.now() - 10_000, timeoutAt: Date.now() - 1 });
      const r = await store.claim(spec.id, answer(true));
      expect(r).toMatchObject({ kind: 'lost', question: { status: 'TIMED_OUT' } });
      const ev = await nextEvent((e) => e.type === 'TIMED_OUT' && e.question.id === spec.id);
      expect(ev.question.closedAt).toBeTypeOf('number');
    });

    it('records who answered and when, and announces ANSWERED, TIMED_OUT and CANCELLED', async () => {
      const a = await create();
      const b = await create();
      const c = await create();
      const now = Date.now();
      await store.claim(a.id, answer(true, now));
      await store.claim(b.id, { status: 'TIMED_OUT', now, retentionMs: 60_000 });
      await store.claim(c.id, {
        status: 'CANCELLED',
        cancelReason: 'changed my mind',
        now,
        retentionMs: 60_000,
      });
      expect(await store.get(a.id)).toMatchObject({
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'ops',
        answeredAt: now,
      });
      expect(await store.get(b.id)).toMatchObject({ status: 'TIMED_OUT', closedAt: now, answer: null });
      expect(await store.get(c.id)).toMatchObject({ status: 'CANCELLED', cancelReason: 'changed my mind' });
      expect((await nextEvent((e) => e.question.id === a.id && e.type !== 'ASKED')).type).toBe('ANSWERED');
      expect((await nextEvent((e) => e.question.id === b.id && e.type !== 'ASKED')).type).toBe('TIMED_OUT');
      expect((await nextEvent((e) => e.question.id === c.id && e.type !== 'ASKED')).question.status).toBe(
        'CANCELLED',
      );
      expect(await store.pending({})).toEqual([]);
    });

    it('keeps a sensitive answer only in the one-read reply slot', async () => {
      const spec = await create({ sensitive: true, format: 'TEXT' });
      await store.claim(spec.id, { ...answer(null), reply: 'hunter2' });
      const rec = await store.get(spec.id);
      expect(rec?.answer).toBeNull();
      const ev = await nextEvent((e) => e.type === 'ANSWERED' && e.question.id === spec.id);
      expect(JSON.stringify(ev)).not.toContain('hunter2');
      expect(await store.takeReply(spec.id)).toEqual({ value: 'hunter2' });
      // A re-attach within the grace (the first response may never have been delivered).
      expect(await store.takeReply(spec.id)).toEqual({ value: 'hunter2' });
      expect(await store.takeReply('nope')).toBeUndefined();
    });

    it('a sensitive answer survives an undelivered read for the grace, then is spent', async () => {
      const short = await make({ replyGraceMs: 300 });
      try {
        const spec = specOf({ sensitive: true, format: 'TEXT' });
        expect((await short.store.create(spec, opts)).kind).toBe('created');
        await short.store.claim(spec.id, { ...answer(null), reply: { pin: 1234 } });
        const first = Date.now();
        expect(await short.store.takeReply(spec.id)).toEqual({ value: { pin: 1234 } });
        // Reads every 25 ms must not extend it: the window ends 300 ms after the first read.
        await vi.waitFor(
          async () => {
            const again = await short.store.takeReply(spec.id);
            if (Date.now() - first < 300) expect(again).toEqual({ value: { pin: 1234 } });
            expect(again).toBeUndefined();
          },
          { timeout: 5000, interval: 25 },
        );
        expect(await short.store.takeReply(spec.id)).toBeUndefined();
      } finally {
        await short.close();
      }
    });

    it('with no grace a sensitive answer is read exactly once', async () => {
      const once = await make({ replyGraceMs: 0 });
      try {
        const spec = specOf({ sensitive: true, format: 'TEXT' });
        expect((await once.store.create(spec, opts)).kind).toBe('created');
        await once.store.claim(spec.id, { ...answer(null), reply: 'hunter2' });
        expect(await once.store.takeReply(spec.id)).toEqual({ value: 'hunter2' });
        expect(await once.store.takeReply(spec.id)).toBeUndefined();
      } finally {
        await once.close();
      }
    });

    it('lists pending oldest first with filters', async () => {
      const t = Date.now();
      const a = await create({ createdAt: t - 3000, groupId: 'g1', audience: 'alice' });
      const b = await create({ createdAt: t - 2000, channel: 'slack', askedBy: 'agent2' });
      const c = await create({ createdAt: t - 1000, groupId: 'g1' });
      expect((await store.pending({})).map((q) => q.id)).toEqual([a.id, b.id, c.id]);
      expect((await store.pending({ groupId: 'g1' })).map((q) => q.id)).toEqual([a.id, c.id]);
      expect((await store.pending({ audience: 'alice' })).map((q) => q.id)).toEqual([a.id]);
      expect((await store.pending({ channel: 'slack' })).map((q) => q.id)).toEqual([b.id]);
      expect((await store.pending({ askedBy: 'agent2' })).map((q) => q.id)).toEqual([b.id]);
    });

    it('pages every question newest first with honest counts and stable cursors', async () => {
      const t = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push((await create({ createdAt: t - 10_000 + i * 100, groupId: 'g' })).id);
      // two with the same createdAt: order must still be total
      ids.push((await create({ createdAt: t, groupId: 'g', id: 'b-same' })).id);
      ids.push((await create({ createdAt: t, groupId: 'g', id: 'a-same' })).id);
      await store.claim(ids[2]!, answer(true));
      const newestFirst = [...ids.slice(0, 7)].reverse();
      newestFirst.unshift('b-same', 'a-same');
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page = await store.list({ groupId: 'g' }, { first: 2, after });
        expect(page.totalCount).toBe(9);
        seen.push(...page.items.map((q) => q.id));
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      expect(seen).toEqual(newestFirst);
      const answered = await store.list({ status: ['ANSWERED'] }, { first: 50 });
      expect(answered.items.map((q) => q.id)).toEqual([ids[2]]);
      expect(answered.totalCount).toBe(1);
      const pendingOnly = await store.list({ status: ['PENDING'], groupId: 'g' }, { first: 3 });
      expect(pendingOnly.totalCount).toBe(8);
      expect(pendingOnly.hasNextPage).toBe(true);
      const empty = await store.list({ audience: 'nobody' }, { first: 5 });
      expect(empty).toEqual({ items: [], totalCount: 0, hasNextPage: false, endCursor: null });
    });

    it('refuses a cursor it did not make', async () => {
      await expect(store.list({}, { first: 5, after: 'garbage!' })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'after',
      });
    });

    it('maps a ticket hash to its question (as it is now), and a reservation only once asked', async () => {
      const spec = await specOf();
      await store.create(spec, { ...opts, ticketHash: 'a'.repeat(64) });
      expect((await store.questionForTicket('a'.repeat(64)))?.id).toBe(spec.id);
      expect(await store.questionForTicket('b'.repeat(64))).toBeNull();
      await store.claim(spec.id, answer({ signed: true }));
      expect(await store.questionForTicket('a'.repeat(64))).toMatchObject({
        status: 'ANSWERED',
        answer: { signed: true },
      });

      const prepared = specOf();
      await store.reserve(
        {
          id: prepared.id,
          owner: prepared.askedBy,
          ticketHash: 'c'.repeat(64),
          expiresAt: Date.now() + 60_000,
        },
        { now: Date.now() },
      );
      expect(await store.questionForTicket('c'.repeat(64))).toBeNull();
      expect((await store.create(prepared, { ...opts, preparedId: prepared.id })).kind).toBe('created');
      expect(await store.questionForTicket('c'.repeat(64))).toMatchObject({
        id: prepared.id,
        status: 'PENDING',
      });
      const reused = specOf({ id: prepared.id });
      expect(await store.create(reused, { ...opts, preparedId: prepared.id })).toEqual({
        kind: 'no-reservation',
      });
      expect(await store.create(specOf(), { ...opts, preparedId: 'unknown' })).toEqual({
        kind: 'no-reservation',
      });
    });

    const plain = (now = Date.now()) => ({
      answer: { answer: { signed: true }, answeredBy: 'callback', now, retentionMs: 60_000 },
    });

    it('answers a plain EXTERNAL question by its ticket in one step, exactly once', async () => {
      const spec = specOf({ format: 'EXTERNAL', link: 'https://s.example/x' });
      await store.create(spec, { ...opts, ticketHash: 'e'.repeat(64) });
      expect(await store.ticketStep('f'.repeat(64), plain())).toEqual({ kind: 'missing', hits: null });
      const results = await Promise.all([1, 2, 3].map(() => store.ticketStep('e'.repeat(64), plain())));
      expect(results.filter((r) => r.kind === 'won')).toEqual([{ kind: 'won', hits: null }]);
      expect(results.filter((r) => r.kind === 'lost')).toEqual([
        { kind: 'lost', status: 'ANSWERED', hits: null },
        { kind: 'lost', status: 'ANSWERED', hits: null },
      ]);
      expect(await store.get(spec.id)).toMatchObject({
        status: 'ANSWERED',
        answer: { signed: true },
        answeredBy: 'callback',
      });
      const e = await nextEvent((x) => x.type === 'ANSWERED' && x.question.id === spec.id);
      expect(e.question.answer).toEqual({ signed: true });
      expect(await store.pendingIds({})).not.toContain(spec.id);
    });

    it('leaves every other question, and any step without an answer, untouched; times out a late answer', async () => {
      const others: [string, Partial<QuestionSpec>][] = [
        ['1', { format: 'EXTERNAL', schema: { type: 'object' } }],
        ['2', { format: 'EXTERNAL', verifier: { name: 'hmac-sha256', config: { secretEnv: 'S' } } }],
        ['3', { format: 'EXTERNAL', sensitive: true }],
        ['4', { format: 'CONFIRM' }],
      ];
      for (const [c, over] of others) {
        const spec = specOf(over);
        await store.create(spec, { ...opts, ticketHash: c.repeat(64) });
        const r = await store.ticketStep(c.repeat(64), plain());
        expect(r).toMatchObject({ kind: 'other', question: { id: spec.id, status: 'PENDING' } });
        expect((await store.get(spec.id))?.status).toBe('PENDING');
      }
      const lookOnly = specOf({ format: 'EXTERNAL' });
      await store.create(lookOnly, { ...opts, ticketHash: '6'.repeat(64) });
      expect(await store.ticketStep('6'.repeat(64), {})).toMatchObject({
        kind: 'other',
        question: { status: 'PENDING' },
      });
      expect((await store.get(lookOnly.id))?.status).toBe('PENDING');

      const late = specOf({ format: 'EXTERNAL', createdAt: Date.now() - 2000, timeoutAt: Date.now() - 1000 });
      await store.create(late, { ...opts, ticketHash: '5'.repeat(64) });
      expect(await store.ticketStep('5'.repeat(64), plain())).toEqual({
        kind: 'lost',
        status: 'TIMED_OUT',
        hits: null,
      });
      expect((await store.get(late.id))?.status).toBe('TIMED_OUT');
    });

    it('counts a rate limit in the same step: at the max it goes on, one past it stops before the ticket', async () => {
      const spec = specOf({ format: 'EXTERNAL' });
      await store.create(spec, { ...opts, ticketHash: '7'.repeat(64) });
      const count = { key: 'ratelimit:203.0.113.9', windowMs: 60_000, max: 2 };
      const first = await store.ticketStep('8'.repeat(64), { count });
      expect(first).toMatchObject({ kind: 'missing', hits: { count: 1 } });
      expect(first.hits!.ttlMs).toBeGreaterThan(0);
      expect(first.hits!.ttlMs).toBeLessThanOrEqual(60_000);
      expect(await store.ticketStep('7'.repeat(64), { ...plain(), count })).toMatchObject({
        kind: 'won',
        hits: { count: 2 },
      });
      const over = await store.ticketStep('7'.repeat(64), { ...plain(), count });
      expect(over).toMatchObject({ kind: 'limited', hits: { count: 3 } });
      expect(over.hits!.ttlMs).toBeGreaterThan(0);
      // Another client has its own window.
      expect(
        await store.ticketStep('7'.repeat(64), { count: { ...count, key: 'ratelimit:203.0.113.10' } }),
      ).toMatchObject({ kind: 'other', hits: { count: 1 } });
    });

    it('expires due questions exactly once, even when reapers race', async () => {
      const past = Date.now() - 1;
      const due: QuestionSpec[] = [];
      for (let i = 0; i < 5; i++) due.push(await create({ createdAt: past - 1000, timeoutAt: past }));
      const later = await create();
      const counts = await Promise.all(
        Array.from({ length: 4 }, () => store.expireDue(Date.now(), 60_000, 100)),
      );
      expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
      for (const s of due) expect((await store.get(s.id))?.status).toBe('TIMED_OUT');
      expect((await store.get(later.id))?.status).toBe('PENDING');
      await nextEvent((e) => e.type === 'TIMED_OUT' && e.question.id === due[4]!.id);
      expect(events.filter((e) => e.type === 'TIMED_OUT')).toHaveLength(5);
    });

    it('forgets a resolved question after the retention period', async () => {
      const spec = await specOf();
      await store.create(spec, { ...opts, ticketHash: 'd'.repeat(64) });
      await store.claim(spec.id, { ...answer(true), retentionMs: 50 });
      await vi.waitFor(
        async () => {
          await store.prune(Date.now(), 50);
          expect(await store.get(spec.id)).toBeNull();
        },
        { timeout: 5000, interval: 20 },
      );
      expect(await store.questionForTicket('d'.repeat(64))).toBeNull();
      expect((await store.list({}, { first: 10 })).totalCount).toBe(0);
    });

    describe('outbox', () => {
      const lease = 30_000;

      it('a claim enqueues one item per follow-up target, in the same step, once', async () => {
        const spec = specOf();
        const created = await store.create(spec, {
          ...opts,
          followUps: ['channel:ops-slack', 'webhook:runs'],
        });
        expect(created.kind).toBe('created');
        const t = Date.now();
        expect(await store.outbox.leaseDue(t + 60_000, 10, lease, 'i1')).toEqual([]);
        expect((await store.claim(spec.id, answer(true, t))).kind).toBe('won');
        const items = await store.outbox.leaseDue(t, 10, lease, 'i1');
        expect(items.map(({ leaseToken, ...rest }) => rest)).toEqual([
          {
            id: `${spec.id}:channel:ops-slack`,
            questionId: spec.id,
            target: 'channel:ops-slack',
            attempt: 0,
            dueAt: t,
            enqueuedAt: t,
          },
          {
            id: `${spec.id}:webhook:runs`,
            questionId: spec.id,
            target: 'webhook:runs',
            attempt: 0,
            dueAt: t,
            enqueuedAt: t,
          },
        ]);
        for (const it of items) expect(await store.outbox.ack(it.id, it.leaseToken)).toBe(true);
        expect(
          (await store.claim(spec.id, { status: 'CANCELLED', now: t + 1, retentionMs: 60_000 })).kind,
        ).toBe('lost');
        expect(await store.outbox.leaseDue(t + 3_600_000, 10, lease, 'i1')).toEqual([]);
      });

      it('the reaper, a cancel and a late claim enqueue too; questions without targets do not', async () => {
        const t = Date.now();
        const followUps = ['webhook:runs'];
        const due = specOf({ createdAt: t - 2000, timeoutAt: t - 1 });
        const late = specOf({ createdAt: t - 2000, timeoutAt: t - 1 });
        const cancelled = specOf();
        const plain = specOf();
        for (const s of [due, late, cancelled]) await store.create(s, { ...opts, followUps });
        await store.create(plain, opts);
        expect(await store.expireDue(t, 60_000, 1)).toBe(1);
        await store.claim(late.id, answer(true, t));
        await store.claim(cancelled.id, { status: 'CANCELLED', now: t, retentionMs: 60_000 });
        await store.claim(plain.id, answer(true, t));
        await store.expireDue(t, 60_000, 10);
        const items = await store.outbox.leaseDue(t, 10, lease, 'i1');
        expect(items.map((i) => i.questionId).sort()).toEqual([due.id, late.id, cancelled.id].sort());
      });

      it('a leased item is hidden until its lease expires, then leased again as the next attempt', async () => {
        const spec = specOf();
        await store.create(spec, { ...opts, followUps: ['channel:a'] });
        const t = Date.now();
        await store.claim(spec.id, answer(true, t));
        const [first] = await store.outbox.leaseDue(t, 10, 1000, 'i1');
        expect(first).toMatchObject({ attempt: 0 });
        expect(await store.outbox.leaseDue(t, 10, 1000, 'i2')).toEqual([]);
        expect(await store.outbox.leaseDue(t + 999, 10, 1000, 'i2')).toEqual([]);
        // i1 died without acknowledging: at lease expiry the item is due again, never lost.
        const [second] = await store.outbox.leaseDue(t + 1000, 10, 1000, 'i2');
        expect(second).toMatchObject({ id: first!.id, attempt: 1, dueAt: t + 1000 });
        expect(second!.leaseToken).not.toBe(first!.leaseToken);
        expect(await store.outbox.ack(first!.id, first!.leaseToken)).toBe(false);
        expect(await store.outbox.retry(first!.id, first!.leaseToken, t)).toBe(false);
        expect(await store.outbox.ack(second!.id, second!.leaseToken)).toBe(true);
        expect(await store.outbox.leaseDue(t + 3_600_000, 10, 1000, 'i1')).toEqual([]);
      });

      it('retry reschedules with attempt + 1, drop removes, a spent token changes nothing', async () => {
        const spec = specOf();
        await store.create(spec, { ...opts, followUps: ['webhook:runs'] });
        const t = Date.now();
        await store.claim(spec.id, answer(true, t));
        const [a] = await store.outbox.leaseDue(t, 1, lease, 'i1');
        expect(await store.outbox.retry(a!.id, a!.leaseToken, t + 5000)).toBe(true);
        expect(await store.outbox.retry(a!.id, a!.leaseToken, t + 5000)).toBe(false);
        expect(await store.outbox.leaseDue(t + 4999, 10, lease, 'i1')).toEqual([]);
        const [b] = await store.outbox.leaseDue(t + 5000, 10, lease, 'i2');
        expect(b).toMatchObject({ id: a!.id, attempt: 1, dueAt: t + 5000, enqueuedAt: t });
        expect(await store.outbox.drop(b!.id, 'not-the-token')).toBe(false);
        expect(await store.outbox.drop(b!.id, b!.leaseToken)).toBe(true);
        expect(await store.outbox.drop(b!.id, b!.leaseToken)).toBe(false);
        expect(await store.outbox.leaseDue(t + 3_600_000, 10, lease, 'i1')).toEqual([]);
      });

      it('two leasers racing over 100 items: each item goes to exactly one', async () => {
        const t = Date.now();
        const specs = Array.from({ length: 100 }, () => specOf());
        await Promise.all(specs.map((s) => store.create(s, { ...opts, followUps: ['channel:x'] })));
        await Promise.all(specs.map((s) => store.claim(s.id, answer(true, t))));
        async function leaser(owner: string): Promise<string[]> {
          const got: string[] = [];
          // Bounded: a lease that hid nothing would hand out the same items forever.
          for (let round = 0; round < 50; round++) {
            const batch = await store.outbox.leaseDue(t, 7, lease, owner);
            if (batch.length === 0) return got;
            got.push(...batch.map((i) => i.id));
          }
          throw new Error(`${owner} kept leasing: items are not hidden by their lease`);
        }
        const [a, b] = await Promise.all([leaser('i1'), leaser('i2')]);
        const all = [...a!, ...b!];
        expect(all).toHaveLength(100);
        expect(new Set(all).size).toBe(100);
        expect(new Set(all)).toEqual(new Set(specs.map((s) => `${s.id}:channel:x`)));
      });

      it('defer hands an item back without counting an attempt; a spent token changes nothing', async () => {
        const spec = specOf();
        await store.create(spec, { ...opts, followUps: ['webhook:runs'] });
        const t = Date.now();
        await store.claim(spec.id, answer(true, t));
        const [a] = await store.outbox.leaseDue(t, 1, lease, 'i1');
        expect(await store.outbox.defer(a!.id, a!.leaseToken, t + 2000)).toBe(true);
        expect(await store.outbox.defer(a!.id, a!.leaseToken, t + 2000)).toBe(false);
        expect(await store.outbox.leaseDue(t + 1999, 10, lease, 'i1')).toEqual([]);
        const [b] = await store.outbox.leaseDue(t + 2000, 10, lease, 'i2');
        expect(b).toMatchObject({ id: a!.id, attempt: 0, dueAt: t + 2000, enqueuedAt: t });
        expect(await store.outbox.ack(b!.id, b!.leaseToken)).toBe(true);
        await expect(store.outbox.defer('x', 'y', -1)).rejects.toThrow(RangeError);
      });

      it('a drop keeps a dead letter: listed newest first, counted, forgotten after its retention', async () => {
        const t = Date.now();
        const specs = [specOf(), specOf()];
        for (const s of specs) {
          await store.create(s, { ...opts, followUps: ['webhook:runs'] });
          await store.claim(s.id, answer(true, t));
        }
        expect(await store.outbox.stats(t)).toEqual({ items: 2, deadLetters: 0 });
        const [first, second] = await store.outbox.leaseDue(t, 10, lease, 'i1');
        expect(await store.outbox.retry(first!.id, first!.leaseToken, t)).toBe(true);
        const [again] = await store.outbox.leaseDue(t, 1, lease, 'i1');
        expect(again!.id).toBe(first!.id);
        const note = { reason: 'webhook runs answered 503\nsecond line', now: t + 10, retentionMs: 5000 };
        expect(await store.outbox.drop(again!.id, again!.leaseToken, note)).toBe(true);
        expect(await store.outbox.drop(again!.id, again!.leaseToken, note)).toBe(false);
        expect(
          await store.outbox.drop(second!.id, second!.leaseToken, {
            ...note,
            now: t + 20,
            retentionMs: 10_000,
          }),
        ).toBe(true);
        expect(await store.outbox.stats(t + 20)).toEqual({ items: 0, deadLetters: 2 });
        const letters = await store.outbox.deadLetters(t + 20, 10);
        expect(letters.map((l) => l.id)).toEqual([second!.id, first!.id]);
        expect(letters[1]).toEqual({
          id: first!.id,
          questionId: first!.questionId,
          target: 'webhook:runs',
          attempts: 2,
          lastError: 'webhook runs answered 503 second line',
          enqueuedAt: t,
          droppedAt: t + 10,
        });
        expect(await store.outbox.deadLetters(t + 20, 1)).toHaveLength(1);
        // The first one's retention ends at t + 5010, the second's at t + 10020.
        expect((await store.outbox.deadLetters(t + 5010, 10)).map((l) => l.id)).toEqual([second!.id]);
        expect(await store.outbox.stats(t + 10_020)).toEqual({ items: 0, deadLetters: 0 });
        await expect(store.outbox.deadLetters(t, 0)).rejects.toThrow(RangeError);
        await expect(store.outbox.deadLetters(t, 1001)).rejects.toThrow(RangeError);
        expect(await store.outbox.deadLetters(t, 1000)).toEqual([]);
      });

      it('a dead letter keeps at most 300 characters of its reason, and a drop with no note has one too', async () => {
        const t = Date.now();
        const specs = [specOf(), specOf()];
        for (const s of specs) {
          await store.create(s, { ...opts, followUps: ['channel:c'] });
          await store.claim(s.id, answer(true, t));
        }
        const [a, b] = await store.outbox.leaseDue(t, 10, lease, 'i1');
        await store.outbox.drop(a!.id, a!.leaseToken, {
          reason: 'x'.repeat(400),
          now: t,
          retentionMs: 60_000,
        });
        await store.outbox.drop(b!.id, b!.leaseToken);
        const letters = await store.outbox.deadLetters(t, 10);
        const long = letters.find((l) => l.id === a!.id)!;
        expect(long.lastError).toHaveLength(300);
        expect(letters.find((l) => l.id === b!.id)?.lastError).toBe('dropped');
      });

      it('the outbox cap: at it a question with follow-ups is refused, one without is not; a resolution still enqueues', async () => {
        const t = Date.now();
        const held = [specOf(), specOf(), specOf()];
        for (const s of held) {
          expect((await store.create(s, { ...opts, followUps: ['webhook:runs'], maxOutbox: 2 })).kind).toBe(
            'created',
          );
        }
        await store.claim(held[0]!.id, answer(true, t));
        // One item held, the cap is 2: one below it, a question with follow-ups is still taken.
        const below = specOf();
        expect((await store.create(below, { ...opts, followUps: ['webhook:runs'], maxOutbox: 2 })).kind).toBe(
          'created',
        );
        await store.claim(held[1]!.id, answer(true, t));
        expect((await store.outbox.stats(t)).items).toBe(2);
        const refused = specOf();
        expect(await store.create(refused, { ...opts, followUps: ['channel:c'], maxOutbox: 2 })).toEqual({
          kind: 'limit',
          limit: 'outbox',
        });
        expect(await store.get(refused.id)).toBeNull();
        expect((await store.create(specOf(), { ...opts, maxOutbox: 2 })).kind).toBe('created');
        expect((await store.create(specOf(), { ...opts, followUps: ['channel:c'], maxOutbox: 3 })).kind).toBe(
          'created',
        );
        // A question asked before the outbox filled resolves and enqueues: one past the cap.
        await store.claim(held[2]!.id, answer(true, t));
        expect((await store.outbox.stats(t)).items).toBe(3);
        // Acknowledging gives the room back.
        for (const it of await store.outbox.leaseDue(t, 10, lease, 'i1'))
          await store.outbox.ack(it.id, it.leaseToken);
        expect((await store.create(specOf(), { ...opts, followUps: ['channel:c'], maxOutbox: 2 })).kind).toBe(
          'created',
        );
      });

      it('follow-ups due at once are enqueued with the question, and skipped (never refusing) at the cap', async () => {
        const t = Date.now();
        const asked = specOf();
        expect((await store.create(asked, { ...opts, askFollowUps: ['push'], maxOutbox: 1 })).kind).toBe(
          'created',
        );
        const due = await store.outbox.leaseDue(t + 1, 10, lease, 'i1');
        expect(due.map((i) => i.id)).toEqual([`${asked.id}:push`]);
        // The outbox holds one item, its cap: the next question is stored without its push.
        const skipped = specOf();
        expect((await store.create(skipped, { ...opts, askFollowUps: ['push'], maxOutbox: 1 })).kind).toBe(
          'created',
        );
        expect((await store.outbox.stats(t + 1)).items).toBe(1);
        expect((await store.get(skipped.id))?.status).toBe('PENDING');
      });

      it('refuses bad targets and lease arguments before writing anything', async () => {
        const many = (n: number) => Array.from({ length: n }, (_, i) => `channel:c${i}`);
        for (const followUps of [many(17), ['has space'], ['x'.repeat(201)], ['a', 'a'], ['']]) {
          const spec = specOf();
          await expect(store.create(spec, { ...opts, followUps })).rejects.toThrow(RangeError);
          expect(await store.get(spec.id)).toBeNull();
        }
        for (const followUps of [many(16), ['x'.repeat(200)]]) {
          expect((await store.create(specOf(), { ...opts, followUps })).kind).toBe('created');
        }
        const t = Date.now();
        await expect(store.outbox.leaseDue(t, 0, lease, 'i1')).rejects.toThrow(RangeError);
        await expect(store.outbox.leaseDue(t, 1001, lease, 'i1')).rejects.toThrow(RangeError);
        await expect(store.outbox.leaseDue(t, 1, 0, 'i1')).rejects.toThrow(RangeError);
        await expect(store.outbox.leaseDue(t, 1, lease, '')).rejects.toThrow(RangeError);
        expect(await store.outbox.leaseDue(t, 1000, lease, 'i1')).toEqual([]);
        await expect(store.outbox.retry('x', 'y', Number.NaN)).rejects.toThrow(RangeError);
      });
    });

    describe('seenOnce (inbound messages acted on once)', () => {
      it('the first caller of a key is first; later ones learn when it was first seen', async () => {
        const t0 = Date.now();
        expect(await store.seenOnce('inbound:sms:SM1', t0, 60_000)).toEqual({ first: true, at: t0 });
        expect(await store.seenOnce('inbound:sms:SM1', t0 + 5, 60_000)).toEqual({ first: false, at: t0 });
        expect(await store.seenOnce('inbound:sms:SM2', t0 + 5, 60_000)).toEqual({ first: true, at: t0 + 5 });
      });

      it('exactly one of many racing callers is first', async () => {
        const t0 = Date.now();
        const all = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.seenOnce('inbound:sms:race', t0 + i, 60_000)),
        );
        expect(all.filter((s) => s.first)).toHaveLength(1);
        const at = all.find((s) => s.first)!.at;
        for (const s of all) expect(s.at).toBe(at);
      });

      it('a key is forgotten after its lifetime', async () => {
        expect((await store.seenOnce('inbound:sms:short', Date.now(), 30)).first).toBe(true);
        await expect
          .poll(async () => (await store.seenOnce('inbound:sms:short', Date.now(), 30)).first, {
            timeout: 5000,
            interval: 20,
          })
          .toBe(true);
      });

      it(`keys of 1 to ${MAX_SEEN_KEY_CHARS} characters and positive lifetimes; anything else throws`, async () => {
        const now = Date.now();
        expect((await store.seenOnce('k'.repeat(MAX_SEEN_KEY_CHARS), now, 1000)).first).toBe(true);
        await expect(store.seenOnce('k'.repeat(MAX_SEEN_KEY_CHARS + 1), now, 1000)).rejects.toThrow(
          RangeError,
        );
        await expect(store.seenOnce('', now, 1000)).rejects.toThrow(RangeError);
        await expect(store.seenOnce('k', now, 0)).rejects.toThrow(RangeError);
      });
    });

    it('answers ping while open', async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}
