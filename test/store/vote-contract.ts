// The store's vote step (API.md §15 quorum), one suite run unchanged against the memory and
// Redis stores: a vote is counted and announced as UPDATED, the threshold resolves it ANSWERED
// with the votes on the record, a second vote by one identity and an identity outside `voters`
// change nothing, and 50 voters at once count exactly the needed number.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Decision, QuestionSpec, QuorumSpec } from '../../src/domain/question.ts';
import type { QuestionStore, StoreEvent, VoteInput } from '../../src/store/types.ts';
import { refundAction, specOf } from '../support/fixtures.ts';
import type { StoreHarness } from './contract.ts';
import { recordEvents } from './event-log.ts';

const opts = { maxPending: 1000, retentionMs: 60_000 };
const ARGS = { id: 'ch_1', amount: 100 };

function approvalSpec(quorum: QuorumSpec, over: Partial<QuestionSpec> = {}): QuestionSpec {
  return {
    ...specOf({ text: 'Refund ch_1?', format: 'APPROVAL', ...over }),
    action: refundAction(ARGS),
    quorum,
  };
}

function ballot(by: string, decision: Decision, quorum: QuorumSpec, now = Date.now()): VoteInput {
  const answer = decision === 'APPROVED' ? { decision, arguments: ARGS } : { decision };
  return {
    vote: { by, via: 'api', decision, note: null, at: now },
    quorum,
    answer,
    now,
    retentionMs: 60_000,
  };
}

export function voteContract(name: string, make: () => Promise<StoreHarness>): void {
  describe(`QuestionStore votes (${name})`, () => {
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

    async function asked(quorum: QuorumSpec, over: Partial<QuestionSpec> = {}): Promise<QuestionSpec> {
      const spec = approvalSpec(quorum, over);
      const r = await store.create(spec, opts);
      expect(r.kind).toBe('created');
      return spec;
    }

    it('counts a vote, announces UPDATED with it, and keeps the question pending', async () => {
      const quorum = { approvals: 2, rejections: 2, voters: null };
      const spec = await asked(quorum);
      const r = await store.vote(spec.id, ballot('alice', 'APPROVED', quorum));
      expect(r.kind).toBe('counted');
      if (r.kind !== 'counted') return;
      expect(r.question.status).toBe('PENDING');
      expect(r.question.votes).toEqual([expect.objectContaining({ by: 'alice', decision: 'APPROVED' })]);
      const updated = await nextEvent((e) => e.type === 'UPDATED' && e.head.id === spec.id);
      expect(updated.question.status).toBe('PENDING');
      expect(updated.question.votes?.map((v) => v.by)).toEqual(['alice']);
      expect(updated.question.action?.name).toBe('payments.refund');
      const read = await store.get(spec.id);
      expect(read?.status).toBe('PENDING');
      expect(read?.votes?.map((v) => v.by)).toEqual(['alice']);
      const [listed] = await store.pending({});
      expect(listed?.votes?.length).toBe(1);
    });

    it('resolves ANSWERED at the approvals threshold, with every vote on the record and the event', async () => {
      const quorum = { approvals: 2, rejections: 2, voters: null };
      const spec = await asked(quorum);
      expect((await store.vote(spec.id, ballot('alice', 'APPROVED', quorum))).kind).toBe('counted');
      expect((await store.vote(spec.id, ballot('bob', 'REJECTED', quorum))).kind).toBe('counted');
      const r = await store.vote(spec.id, ballot('carol', 'APPROVED', quorum));
      expect(r.kind).toBe('decided');
      if (r.kind !== 'decided') return;
      expect(r.question.status).toBe('ANSWERED');
      expect(r.question.answer).toEqual({ decision: 'APPROVED', arguments: ARGS });
      expect(r.question.answeredBy).toBe('carol');
      expect(r.question.votes?.map((v) => `${v.by}:${v.decision}`)).toEqual([
        'alice:APPROVED',
        'bob:REJECTED',
        'carol:APPROVED',
      ]);
      const answered = await nextEvent((e) => e.type === 'ANSWERED' && e.head.id === spec.id);
      expect(answered.question.votes?.length).toBe(3);
      expect((await store.get(spec.id))?.votes?.length).toBe(3);
      const late = await store.vote(spec.id, ballot('dave', 'APPROVED', quorum));
      expect(late.kind).toBe('lost');
      // The audit log: one VOTED entry per counted vote (decision only), then the decision.
      const page = await store.audit.page({ questionId: spec.id, first: 50 });
      const entries = page.entries.map((e) => [e.type, e.actor, e.detail?.decision ?? null]);
      expect(entries).toEqual([
        ['ASKED', 'agent', null],
        ['VOTED', 'alice', 'APPROVED'],
        ['VOTED', 'bob', 'REJECTED'],
        ['VOTED', 'carol', 'APPROVED'],
        ['ANSWERED', 'carol', 'APPROVED'],
      ]);
      expect(page.entries.find((e) => e.type === 'VOTED')?.via).toBe('api');
    });

    it('resolves ANSWERED with REJECTED at the rejections threshold', async () => {
      const quorum = { approvals: 3, rejections: 1, voters: null };
      const spec = await asked(quorum);
      const r = await store.vote(spec.id, ballot('alice', 'REJECTED', quorum));
      expect(r.kind).toBe('decided');
      if (r.kind === 'decided') expect(r.question.answer).toEqual({ decision: 'REJECTED' });
    });

    it('refuses a second vote by the same identity and an identity outside voters, changing nothing', async () => {
      const quorum = { approvals: 2, rejections: 2, voters: ['alice', 'bob', 'carol'] };
      const spec = await asked(quorum);
      expect((await store.vote(spec.id, ballot('alice', 'APPROVED', quorum))).kind).toBe('counted');
      expect((await store.vote(spec.id, ballot('alice', 'APPROVED', quorum))).kind).toBe('voted');
      expect((await store.vote(spec.id, ballot('alice', 'REJECTED', quorum))).kind).toBe('voted');
      expect((await store.vote(spec.id, ballot('mallory', 'APPROVED', quorum))).kind).toBe('forbidden');
      const read = await store.get(spec.id);
      expect(read?.status).toBe('PENDING');
      expect(read?.votes?.map((v) => v.by)).toEqual(['alice']);
    });

    it('times a question out instead of counting a vote past its deadline; a timeout keeps the votes', async () => {
      const quorum = { approvals: 2, rejections: 2, voters: null };
      const t0 = Date.now();
      const spec = await asked(quorum, { createdAt: t0, timeoutAt: t0 + 1000 });
      expect((await store.vote(spec.id, ballot('alice', 'APPROVED', quorum, t0 + 10))).kind).toBe('counted');
      const r = await store.vote(spec.id, ballot('bob', 'APPROVED', quorum, t0 + 1000));
      expect(r.kind).toBe('lost');
      if (r.kind !== 'lost') return;
      expect(r.question.status).toBe('TIMED_OUT');
      expect(r.question.answer).toBeNull();
      expect(r.question.votes?.map((v) => v.by)).toEqual(['alice']);
    });

    it('says missing for an unknown question', async () => {
      const quorum = { approvals: 1, rejections: 1, voters: null };
      expect((await store.vote('nope', ballot('alice', 'APPROVED', quorum))).kind).toBe('missing');
    });

    it('counts exactly the needed number when 50 voters vote at once, and announces one decision', async () => {
      const quorum = { approvals: 3, rejections: 20, voters: null };
      const spec = await asked(quorum);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.vote(spec.id, ballot(`voter-${i}`, 'APPROVED', quorum))),
      );
      const kinds = results.map((r) => r.kind);
      expect(kinds.filter((k) => k === 'counted')).toHaveLength(2);
      expect(kinds.filter((k) => k === 'decided')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'lost')).toHaveLength(47);
      const read = await store.get(spec.id);
      expect(read?.status).toBe('ANSWERED');
      expect(read?.votes).toHaveLength(3);
      await nextEvent((e) => e.type === 'ANSWERED' && e.head.id === spec.id);
      expect(events.filter((e) => e.type === 'ANSWERED' && e.head.id === spec.id)).toHaveLength(1);
    });
  });
}
