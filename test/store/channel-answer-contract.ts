// The store's one-step channel answer (channelAnswer, API.md §9), one suite run unchanged against
// the memory and Redis stores: a pending CONFIRM (or an APPROVAL's reject) delivered to the
// clicking channel is claimed exactly as claim() claims it, with its audit entry and follow-up,
// and returned with that channel's delivery; 100 clicks at once make one winner; every other
// question comes back unchanged, as getWithDelivery reads it; a late click times the question out.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jcsDigest } from '../../src/domain/digest.ts';
import type { QuestionSpec } from '../../src/domain/question.ts';
import type { ChannelAnswerInput, QuestionStore, StoreEvent } from '../../src/store/types.ts';
import { refundAction, specOf } from '../support/fixtures.ts';
import { allEntries } from './audit-contract.ts';
import type { StoreHarness } from './contract.ts';
import { recordEvents } from './event-log.ts';

const opts = { maxPending: 1000, retentionMs: 60_000 };
const PLACE = 'ops-slack';
const ARGS = { id: 'ch_1', amount: 100 };
const ACTION = refundAction(ARGS);

const yes = (now = Date.now(), by = `${PLACE}:U1`): ChannelAnswerInput => ({
  format: 'CONFIRM',
  answer: true,
  place: PLACE,
  answeredBy: by,
  now,
  retentionMs: 60_000,
});

export function channelAnswerContract(name: string, make: () => Promise<StoreHarness>): void {
  describe(`QuestionStore one-step channel answer (${name})`, () => {
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

    async function delivered(over: Partial<QuestionSpec> = {}, followUps?: string[]): Promise<QuestionSpec> {
      const spec = specOf({ channel: PLACE, recipient: 'C1', ...over });
      const r = await store.create(spec, { ...opts, ...(followUps ? { followUps } : {}) });
      expect(r.kind).toBe('created');
      if (spec.channel) {
        expect(
          await store.deliveries.save(spec.id, { recipient: 'C1', channel: 'C1', ts: '1.1' }, 1000),
        ).toBe(true);
      }
      return spec;
    }

    /** Every announcement made before this call returns (a later one on a fresh question marks the end). */
    async function announcedSoFar(): Promise<StoreEvent[]> {
      const sentinel = specOf();
      await store.create(sentinel, opts);
      await nextEvent((e) => e.question.id === sentinel.id);
      return events.filter((e) => e.question.id !== sentinel.id);
    }

    it('claims a pending CONFIRM of the clicking channel as claim() would, with its delivery, entry and follow-up', async () => {
      const spec = await delivered({}, [`channel:${PLACE}`]);
      const now = Date.now();
      const r = await store.channelAnswer(spec.id, yes(now));
      const stored = await store.getWithDelivery(spec.id, PLACE);
      expect(r).toEqual({ kind: 'won', ...stored });
      expect(stored?.question).toMatchObject({
        status: 'ANSWERED',
        answer: true,
        answeredBy: `${PLACE}:U1`,
        answeredAt: now,
        closedAt: null,
      });
      expect(stored?.delivery).toEqual({
        delivery: { recipient: 'C1', channel: 'C1', ts: '1.1' },
        deliveredAt: 1000,
      });
      expect(await store.pendingIds({})).not.toContain(spec.id);
      const ev = await nextEvent((e) => e.type === 'ANSWERED' && e.question.id === spec.id);
      expect(ev.question).toEqual(stored?.question);
      // The follow-up the claim owes the channel (its message edit), enqueued in the same step.
      const leased = await store.outbox.leaseDue(Date.now(), 10, 60_000, 'test');
      expect(leased.map((i) => [i.questionId, i.target])).toEqual([[spec.id, `channel:${PLACE}`]]);
      const entry = (await allEntries(store)).filter(
        (e) => e.questionId === spec.id && e.type === 'ANSWERED',
      );
      expect(entry).toHaveLength(1);
      expect(entry[0]).toMatchObject({
        at: new Date(now).toISOString(),
        actor: `${PLACE}:U1`,
        via: `channel:${PLACE}`,
        detail: { format: 'CONFIRM', answerDigest: jcsDigest(true), decision: 'APPROVED' },
      });
    });

    it('100 clicks at once: exactly one wins, the others get the answered question; one entry, one announcement', async () => {
      const spec = await delivered({}, [`channel:${PLACE}`]);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          store.channelAnswer(spec.id, yes(Date.now(), `${PLACE}:U${i}`)),
        ),
      );
      const winners = results.filter((r) => r.kind === 'won');
      expect(winners).toHaveLength(1);
      const winner = winners[0]!;
      if (winner.kind !== 'won') throw new Error('unreachable');
      const after = await store.get(spec.id);
      expect(after).toEqual(winner.question);
      for (const r of results.filter((x) => x.kind !== 'won')) {
        expect(r).toEqual({ kind: 'other', question: after, delivery: winner.delivery });
      }
      const entries = (await allEntries(store)).filter((e) => e.questionId === spec.id);
      expect(entries.map((e) => e.type)).toEqual(['ASKED', 'DELIVERED', 'ANSWERED']);
      expect(entries[2]!.actor).toBe(after?.answeredBy);
      const answered = (await announcedSoFar()).filter(
        (e) => e.question.id === spec.id && e.type === 'ANSWERED',
      );
      expect(answered).toHaveLength(1);
      expect((await store.outbox.stats(Date.now())).items).toBe(1);
    });

    it("an APPROVAL's reject in one step, its decision in the entry", async () => {
      const spec = await delivered({ format: 'APPROVAL', action: ACTION });
      const now = Date.now();
      const r = await store.channelAnswer(spec.id, {
        ...yes(now),
        format: 'APPROVAL',
        answer: { decision: 'REJECTED' },
      });
      expect(r).toMatchObject({
        kind: 'won',
        question: { status: 'ANSWERED', answer: { decision: 'REJECTED' } },
      });
      const entry = (await allEntries(store)).find((e) => e.questionId === spec.id && e.type === 'ANSWERED');
      expect(entry).toMatchObject({
        via: `channel:${PLACE}`,
        detail: {
          format: 'APPROVAL',
          decision: 'REJECTED',
          answerDigest: jcsDigest({ decision: 'REJECTED' }),
        },
      });
    });

    it('leaves every other question unchanged and hands it back as getWithDelivery reads it', async () => {
      const reroute = [{ afterSeconds: 60, action: 'REROUTE' as const, channel: PLACE, recipient: 'C2' }];
      const cases: [string, Partial<QuestionSpec>, Partial<ChannelAnswerInput>?][] = [
        ['another channel', { channel: 'pager' }],
        ['a REROUTE place (the full path finds it)', { channel: 'pager', escalation: reroute }],
        ['no channel', { channel: null }],
        ['a TEXT question', { format: 'TEXT' }],
        ['a SELECT question', { format: 'SELECT', options: ['a', 'b'] }],
        ['an APPROVAL for a CONFIRM click', { format: 'APPROVAL', action: ACTION }],
        ['a CONFIRM for an APPROVAL click', {}, { format: 'APPROVAL', answer: { decision: 'REJECTED' } }],
        ['a sensitive question', { sensitive: true }],
        ['a quorum', { quorum: { approvals: 2, rejections: 1, voters: null } }],
        [
          'an APPROVAL quorum',
          { format: 'APPROVAL', action: ACTION, quorum: { approvals: 2, rejections: 1, voters: null } },
          { format: 'APPROVAL', answer: { decision: 'REJECTED' } },
        ],
      ];
      for (const [what, over, input] of cases) {
        const spec = await delivered(over);
        const before = await store.getWithDelivery(spec.id, PLACE);
        const r = await store.channelAnswer(spec.id, { ...yes(), ...input });
        expect(r, what).toEqual({ kind: 'other', ...before });
        expect(await store.getWithDelivery(spec.id, PLACE), what).toEqual(before);
      }
      const cancelled = await delivered();
      await store.claim(cancelled.id, {
        status: 'CANCELLED',
        cancelReason: 'no',
        now: Date.now(),
        retentionMs: 60_000,
      });
      const closed = await store.getWithDelivery(cancelled.id, PLACE);
      expect(closed?.question.status).toBe('CANCELLED');
      expect(await store.channelAnswer(cancelled.id, yes())).toEqual({ kind: 'other', ...closed });
      const entries = (await allEntries(store)).filter((e) => e.type === 'ANSWERED');
      expect(entries).toEqual([]);
      expect(await store.channelAnswer('no-such-question', yes())).toEqual({ kind: 'missing' });
    });

    it('a click after the deadline times the question out instead, as claim() does', async () => {
      const spec = await delivered({ createdAt: Date.now() - 2000, timeoutAt: Date.now() - 1000 });
      const now = Date.now();
      const r = await store.channelAnswer(spec.id, yes(now));
      const stored = await store.getWithDelivery(spec.id, PLACE);
      expect(r).toEqual({ kind: 'other', ...stored });
      expect(stored?.question).toMatchObject({
        status: 'TIMED_OUT',
        answer: null,
        answeredBy: null,
        closedAt: now,
      });
      const entry = (await allEntries(store)).filter(
        (e) => e.questionId === spec.id && e.type === 'TIMED_OUT',
      );
      expect(entry).toMatchObject([{ actor: null, via: null, detail: { format: 'CONFIRM' } }]);
    });
  });
}
