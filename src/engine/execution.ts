// From decision to action (API.md §23): the engine's consumeApproval and reportExecution. The
// receipt is verified with this server's own key set, the rules that read a resolved question
// are the domain's (domain/execution.ts), and "once" is the store's atomic step, which also
// writes the audit entry and the report's follow-ups.
import { jcsDigest } from '../domain/digest.ts';
import { badInput, DomainError, notFound } from '../domain/errors.ts';
import {
  checkConsumable,
  checkReport,
  consumedAuditDetail,
  executedAuditDetail,
  mayExecute,
} from '../domain/execution.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { EngineContext } from './context.ts';
import type { ReceiptPort } from './ports.ts';

/** A receipt is a few hundred bytes; anything far larger is not one of ours (checked before verifying). */
export const RECEIPT_MAX_CHARS = 16_384;

/** The outbox targets a report enqueues: the resume webhook's `question.executed` (API.md §12). */
export function executedFollowUpsOf(q: Pick<QuestionRecord, 'notify'>): string[] {
  return q.notify != null ? [`executed:${q.notify}`] : [];
}

export interface Execution {
  consumeApproval(
    p: Principal,
    id: string,
    receipt: unknown,
    actionDigest?: string | null,
  ): Promise<QuestionRecord>;
  reportExecution(
    p: Principal,
    id: string,
    outcome: unknown,
    resultDigest?: unknown,
    detail?: unknown,
  ): Promise<QuestionRecord>;
}

function forbidden(message: string): DomainError {
  return new DomainError('FORBIDDEN', message);
}

/** The question the caller may use: visible to it (else the uniform NOT_FOUND), asker or executor. */
async function usable(ctx: EngineContext, p: Principal, id: string): Promise<QuestionRecord> {
  const q = await ctx.visible(p, id);
  if (!mayExecute(p, q)) throw forbidden('only the asker or a named executor may use this approval');
  return q;
}

export function createExecution(ctx: EngineContext, receipts: ReceiptPort | undefined): Execution {
  const { store, clock } = ctx;

  return {
    async consumeApproval(p, id, receipt, actionDigest) {
      if (typeof receipt !== 'string' || receipt.length === 0 || receipt.length > RECEIPT_MAX_CHARS) {
        throw badInput('receipt must be the question’s decision receipt (a compact JWS)', 'receipt');
      }
      if (actionDigest != null && typeof actionDigest !== 'string') {
        throw badInput('actionDigest must be a string', 'actionDigest');
      }
      const q = await usable(ctx, p, id);
      if (!receipts?.verify) {
        throw new DomainError('NOT_CONFIGURED', 'this server signs no receipts, so none can be checked');
      }
      const claims = await receipts.verify(receipt);
      if (!claims)
        throw badInput('the receipt’s signature does not verify with this server’s keys', 'receipt');
      const now = clock();
      checkConsumable(p, q, claims, actionDigest ?? null, now);
      const r = await store.consume(q.id, {
        by: p.id,
        now,
        audit: consumedAuditDetail(q, jcsDigest(receipt)),
      });
      switch (r.kind) {
        case 'consumed':
          return r.question;
        case 'used':
          throw new DomainError('ALREADY_ANSWERED', 'already used: this approval was consumed before');
        case 'closed':
          throw forbidden('not approved');
        default:
          throw notFound();
      }
    },

    async reportExecution(p, id, outcome, resultDigest, detail) {
      const report = checkReport(outcome, resultDigest, detail);
      const q = await usable(ctx, p, id);
      const r = await store.report(q.id, {
        by: p.id,
        now: clock(),
        report,
        audit: executedAuditDetail(report),
        followUps: executedFollowUpsOf(q),
      });
      switch (r.kind) {
        case 'reported':
          return r.question;
        case 'duplicate':
          throw new DomainError('ALREADY_ANSWERED', 'already reported: an execution is reported once');
        case 'unconsumed':
          throw forbidden('not consumed: consume the approval before reporting its execution');
        default:
          throw notFound();
      }
    },
  };
}
