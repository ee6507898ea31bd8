// The store's consume and report steps (API.md §23), one suite run unchanged against the memory
// and Redis stores: an ANSWERED question is consumed at most once (100 at once: exactly one
// wins), a report only after a consume and at most once, each with its audit entry in the same
// step, the chain still verifying, and the question stays ANSWERED throughout.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionReport } from '../../src/domain/execution.ts';
import type { QuestionSpec } from '../../src/domain/question.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { refundAction, specOf } from '../support/fixtures.ts';
import { allEntries, expectChained } from './audit-contract.ts';
import type { StoreHarness } from './contract.ts';

const opts = { maxPending: 1000, retentionMs: 60_000 };
const ARGS = { id: 'ch_1', amount: 100 };
const consumeAudit = { actionDigest: 'sha256:a', receiptDigest: 'sha256:r' };
const ok: ExecutionReport = { outcome: 'SUCCEEDED', resultDigest: null, detail: { rows: 1 } };

export function executionContract(name: string, make: () => Promise<StoreHarness>): void {
  describe(`QuestionStore consume and report (${name})`, () => {
    let h: StoreHarness;
    let store: QuestionStore;

    beforeEach(async () => {
      h = await make();
      store = h.store;
    });
    afterEach(async () => {
      await h.close();
    });

    async function approved(): Promise<QuestionSpec> {
      const spec = { ...specOf({ text: 'Refund ch_1?', format: 'APPROVAL' }), action: refundAction(ARGS) };
      expect((await store.create(spec, opts)).kind).toBe('created');
      const answer = { decision: 'APPROVED', arguments: ARGS };
      const won = await store.claim(spec.id, {
        status: 'ANSWERED',
        answer,
        answeredBy: 'alice',
        now: Date.now(),
        retentionMs: 60_000,
      });
      expect(won.kind).toBe('won');
      return spec;
    }

    const consume = (id: string, by = 'agent', now = Date.now()) =>
      store.consume(id, { by, now, audit: consumeAudit });
    const report = (id: string, r = ok, followUps: string[] = []) =>
      store.report(id, { by: 'agent', now: Date.now(), report: r, audit: { outcome: r.outcome }, followUps });

    it('consumes once: the execution on the record, ANSWERED kept; a second consume changes nothing', async () => {
      const spec = await approved();
      const first = await consume(spec.id, 'agent', 1_000);
      expect(first.kind).toBe('consumed');
      if (first.kind !== 'consumed') return;
      expect(first.question.status).toBe('ANSWERED');
      expect(first.question.execution).toEqual({ consumedAt: 1_000, consumedBy: 'agent' });
      expect(first.question.answer).toEqual({ decision: 'APPROVED', arguments: ARGS });
      const again = await consume(spec.id, 'runner', 2_000);
      expect(again.kind).toBe('used');
      const read = await store.get(spec.id);
      expect(read?.status).toBe('ANSWERED');
      expect(read?.execution).toEqual({ consumedAt: 1_000, consumedBy: 'agent' });
    });

    it('refuses a question that is not ANSWERED, and one that does not exist', async () => {
      const spec = { ...specOf({ text: 'Refund?', format: 'APPROVAL' }), action: refundAction(ARGS) };
      await store.create(spec, opts);
      expect((await consume(spec.id)).kind).toBe('closed');
      expect((await store.get(spec.id))?.execution).toBeUndefined();
      expect((await consume('no-such-question')).kind).toBe('missing');
      expect((await report('no-such-question')).kind).toBe('missing');
    });

    it('100 consumes at once: exactly one wins', async () => {
      const spec = await approved();
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => consume(spec.id, `r${i}`)));
      expect(results.filter((r) => r.kind === 'consumed')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'used')).toHaveLength(99);
      const entries = (await store.audit.page({ questionId: spec.id, first: 200 })).entries;
      expect(entries.filter((e) => e.type === 'CONSUMED')).toHaveLength(1);
    });

    it('reports only after a consume, once; the outcome merges into the execution', async () => {
      const spec = await approved();
      expect((await report(spec.id)).kind).toBe('unconsumed');
      await consume(spec.id, 'agent', 1_000);
      const failed: ExecutionReport = {
        outcome: 'FAILED',
        resultDigest: `sha256:${'0'.repeat(64)}`,
        detail: null,
      };
      const r = await report(spec.id, failed);
      expect(r.kind).toBe('reported');
      if (r.kind !== 'reported') return;
      expect(r.question.execution).toMatchObject({
        consumedAt: 1_000,
        consumedBy: 'agent',
        outcome: 'FAILED',
        reportedBy: 'agent',
        resultDigest: failed.resultDigest,
      });
      expect((await report(spec.id)).kind).toBe('duplicate');
      const read = await store.get(spec.id);
      expect(read?.status).toBe('ANSWERED');
      expect(read?.execution?.outcome).toBe('FAILED');
      // A consume after the report still finds it used, and the report survives it.
      expect((await consume(spec.id)).kind).toBe('used');
      expect((await store.get(spec.id))?.execution?.outcome).toBe('FAILED');
    });

    it('writes CONSUMED and EXECUTED in the same steps, and the chain still verifies', async () => {
      const spec = await approved();
      await consume(spec.id);
      await report(spec.id);
      await report(spec.id);
      const page = await store.audit.page({ questionId: spec.id, first: 50 });
      expect(page.entries.map((e) => [e.type, e.actor])).toEqual([
        ['ASKED', 'agent'],
        ['ANSWERED', 'alice'],
        ['CONSUMED', 'agent'],
        ['EXECUTED', 'agent'],
      ]);
      expect(page.entries[2]?.detail).toEqual(consumeAudit);
      expect(page.entries[3]?.detail).toEqual({ outcome: 'SUCCEEDED' });
      await store.audit.chain();
      expectChained(await allEntries(store));
    });

    it("enqueues the report's follow-ups in the same step", async () => {
      const spec = await approved();
      await consume(spec.id);
      await report(spec.id, ok, ['executed:hook']);
      const leased = await store.outbox.leaseDue(Date.now() + 1, 10, 30_000, 'test');
      expect(leased.map((i) => i.target)).toContain('executed:hook');
    });
  });
}
