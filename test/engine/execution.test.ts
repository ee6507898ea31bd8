// consumeApproval and reportExecution in the engine (API.md §23), on the memory store and on
// Redis: who may use an approval, which receipts and digests count, expiry counted from the
// decision, reports once and only after a consume, and 100 consumes spread over two engines on
// one store of which exactly one wins.
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { EXECUTION_DETAIL_MAX_BYTES } from '../../src/domain/limits.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { generateReceiptKey } from '../../src/proof/receipt-keys.ts';
import { createReceiptSigner } from '../../src/proof/receipt-signer.ts';
import { AGENT, AGENT2, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

/** `p` rejects with a DomainError of `code` (and, when given, a message matching `message`, at `field`). */
async function expectDomainError(p: Promise<unknown>, code: string, message?: RegExp, field?: string) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe(code);
  if (message) expect((err as DomainError).message).toMatch(message);
  if (field) expect((err as DomainError).field).toBe(field);
}

const RUNNER: Principal = { id: 'runner', roles: ['agent'], restricted: false };
const ARGS = { id: 'ch_1', amount: 100 };

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`using an approval (${kind})`, () => {
    let set: EngineSet;
    let now = Date.now();
    afterEach(async () => {
      await set.close();
    });

    async function start(count = 1) {
      const receipts = await createReceiptSigner({
        keys: [await generateReceiptKey()],
        issuer: () => 'https://hitl.example',
      });
      now = Date.now();
      set = await startEngines(kind, count, {}, { receipts, clock: () => now });
      return set.engines;
    }

    async function decided(decision: 'APPROVED' | 'REJECTED', action: Record<string, unknown> = {}) {
      const [e] = set.engines;
      const asked = await e!.ask(
        AGENT,
        {
          text: 'Refund ch_1?',
          format: 'APPROVAL',
          action: { name: 'payments.refund', arguments: ARGS, ...action },
        },
        { holdSeconds: 0 },
      );
      const q = await e!.answer(OPS, asked.question.id, { decision });
      const receipt = await e!.receipt(q);
      return { q, receipt: receipt as string };
    }

    it('consumes once; a second consume is ALREADY_ANSWERED "already used"; the question stays ANSWERED', async () => {
      const [e] = await start();
      const { q, receipt } = await decided('APPROVED');
      const used = await e!.consumeApproval(AGENT, q.id, receipt, q.action!.digest);
      expect(used.status).toBe('ANSWERED');
      expect(used.execution).toEqual({ consumedAt: now, consumedBy: 'agent' });
      await expectDomainError(e!.consumeApproval(AGENT, q.id, receipt), 'ALREADY_ANSWERED', /already used/);
    });

    it('refuses rejected, pending and cancelled questions as "not approved"', async () => {
      const [e] = await start();
      const rejected = await decided('REJECTED');
      await expectDomainError(
        e!.consumeApproval(AGENT, rejected.q.id, rejected.receipt),
        'FORBIDDEN',
        /not approved/,
      );
      const pending = await e!.ask(
        AGENT,
        {
          text: 'x',
          format: 'APPROVAL',
          action: { name: 'a', arguments: {} },
        },
        { holdSeconds: 0 },
      );
      const other = await decided('APPROVED');
      // A pending question has no receipt of its own: another question's receipt is refused first.
      await expectDomainError(e!.consumeApproval(AGENT, pending.question.id, other.receipt), 'FORBIDDEN');
      const cancelled = await e!.cancel(AGENT, pending.question.id);
      const cancelledReceipt = (await e!.receipt(cancelled)) as string;
      await expectDomainError(
        e!.consumeApproval(AGENT, cancelled.id, cancelledReceipt),
        'FORBIDDEN',
        /not approved/,
      );
    });

    it('refuses a wrong digest, another question’s receipt, and a receipt whose signature fails', async () => {
      const [e] = await start();
      const a = await decided('APPROVED');
      const b = await decided('APPROVED');
      await expectDomainError(
        e!.consumeApproval(AGENT, a.q.id, a.receipt, `sha256:${'0'.repeat(64)}`),
        'FORBIDDEN',
      );
      await expectDomainError(e!.consumeApproval(AGENT, a.q.id, b.receipt), 'FORBIDDEN');
      const [h, p, s] = a.receipt.split('.');
      const forged = `${h}.${p}.${s!.slice(0, -4)}AAAA`;
      await expectDomainError(
        e!.consumeApproval(AGENT, a.q.id, forged),
        'BAD_USER_INPUT',
        undefined,
        'receipt',
      );
      await expectDomainError(
        e!.consumeApproval(AGENT, a.q.id, 'not a jws'),
        'BAD_USER_INPUT',
        undefined,
        'receipt',
      );
      // None of these used it.
      expect((await e!.consumeApproval(AGENT, a.q.id, a.receipt)).execution?.consumedBy).toBe('agent');
    });

    it('expires validSeconds after the decision: at the limit it is usable, one past it QUESTION_CLOSED', async () => {
      const [e] = await start();
      const a = await decided('APPROVED', { validSeconds: 60 });
      const b = await decided('APPROVED', { validSeconds: 60 });
      now += 60_000;
      expect((await e!.consumeApproval(AGENT, a.q.id, a.receipt)).execution).toBeDefined();
      now += 1;
      await expectDomainError(e!.consumeApproval(AGENT, b.q.id, b.receipt), 'QUESTION_CLOSED', /expired/);
    });

    it('lets the asker and named executors use it; an operator is FORBIDDEN, a stranger sees nothing', async () => {
      const [e] = await start();
      const a = await decided('APPROVED', { executors: ['runner'] });
      await expectDomainError(e!.consumeApproval(OPS, a.q.id, a.receipt), 'FORBIDDEN');
      await expectDomainError(e!.consumeApproval(AGENT2, a.q.id, a.receipt), 'NOT_FOUND');
      expect((await e!.get(RUNNER, a.q.id))?.id).toBe(a.q.id);
      expect((await e!.consumeApproval(RUNNER, a.q.id, a.receipt)).execution?.consumedBy).toBe('runner');
    });

    it('reports once and only after a consume; detail at most 8 KiB', async () => {
      const [e] = await start();
      const a = await decided('APPROVED');
      await expectDomainError(e!.reportExecution(AGENT, a.q.id, 'SUCCEEDED'), 'FORBIDDEN', /not consumed/);
      await e!.consumeApproval(AGENT, a.q.id, a.receipt);
      const big = { x: 'y'.repeat(EXECUTION_DETAIL_MAX_BYTES - '{"x":""}'.length + 1) };
      await expectDomainError(
        e!.reportExecution(AGENT, a.q.id, 'SUCCEEDED', null, big),
        'BAD_USER_INPUT',
        undefined,
        'detail',
      );
      await expectDomainError(
        e!.reportExecution(AGENT, a.q.id, 'DONE'),
        'BAD_USER_INPUT',
        undefined,
        'outcome',
      );
      const atMax = { x: 'y'.repeat(EXECUTION_DETAIL_MAX_BYTES - '{"x":""}'.length) };
      const digest = `sha256:${'a'.repeat(64)}`;
      const done = await e!.reportExecution(AGENT, a.q.id, 'SUCCEEDED', digest, atMax);
      expect(done.execution).toMatchObject({ outcome: 'SUCCEEDED', resultDigest: digest, reportedAt: now });
      await expectDomainError(
        e!.reportExecution(AGENT, a.q.id, 'FAILED'),
        'ALREADY_ANSWERED',
        /already reported/,
      );
    });

    it('100 consumes over two engines on one store: exactly one wins', async () => {
      const engines = await start(2);
      const a = await decided('APPROVED');
      const results = await Promise.allSettled(
        Array.from({ length: 100 }, (_, i) => engines[i % 2]!.consumeApproval(AGENT, a.q.id, a.receipt)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('ALREADY_ANSWERED');
      }
    });
  });
}
