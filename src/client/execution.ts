// Using an approval (API.md §23) from the SDK: consume it once, report what it did, and
// `runApproved`, which does both around the caller's function.
import { NotFoundError } from './errors.ts';
import {
  ClientConsumeApprovalDocument,
  ClientReportExecutionDocument,
  type ExecutionOutcome,
} from './generated/graphql.ts';
import type { Transport } from './transport.ts';
import type { Question } from './types.ts';

export interface ReportOptions {
  /** `sha256:` + 64 hex digits of the result, if the tool has one to record. */
  resultDigest?: string;
  /** Small facts about the run (at most 8 KiB as JSON); never put secrets here. */
  detail?: Record<string, unknown>;
}

export interface ExecutionMethods {
  /**
   * Uses an APPROVED question's approval once, with its decision receipt (the asker or an
   * executor). A second use fails with ALREADY_ANSWERED; a rejected, timed-out or expired
   * approval, or a wrong `actionDigest`, fails too.
   */
  consumeApproval(questionId: string, receipt: string, actionDigest?: string): Promise<Question>;
  /** Records, once, what a consumed approval did. */
  reportExecution(questionId: string, outcome: ExecutionOutcome, options?: ReportOptions): Promise<Question>;
  /**
   * Consumes the approval of `question`, runs `fn` with the approved arguments, and reports
   * SUCCEEDED (with `fn`'s result) or FAILED (then rethrows `fn`'s error). `fn` runs only if
   * the consume succeeded, so it runs at most once per approval across every process.
   */
  runApproved<T>(question: Question, fn: (args: Record<string, unknown>) => T | Promise<T>): Promise<T>;
}

/** The arguments an APPROVED question approved (the edited ones, if any). */
function approvedArguments(q: Question): Record<string, unknown> {
  const answer = q.answer as { arguments?: Record<string, unknown> } | null;
  return answer?.arguments ?? q.action?.arguments ?? {};
}

export function executionMethods(transport: Transport, receiptOf: (id: string) => Promise<string | null>) {
  const methods: ExecutionMethods = {
    async consumeApproval(questionId, receipt, actionDigest) {
      const r = await transport.request(ClientConsumeApprovalDocument, {
        questionId,
        receipt,
        actionDigest: actionDigest ?? null,
      });
      return r.consumeApproval;
    },

    async reportExecution(questionId, outcome, o = {}) {
      const r = await transport.request(ClientReportExecutionDocument, {
        questionId,
        outcome,
        resultDigest: o.resultDigest ?? null,
        detail: o.detail ?? null,
      });
      return r.reportExecution;
    },

    async runApproved(question, fn) {
      const receipt = await receiptOf(question.id);
      if (!receipt) throw new NotFoundError('the question has no receipt yet', { status: 404 });
      const used = await methods.consumeApproval(question.id, receipt);
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn(approvedArguments(used));
      } catch (err) {
        // Only the error's name: its message may carry what the tool must not leak.
        const name = err instanceof Error ? err.name : typeof err;
        await methods.reportExecution(question.id, 'FAILED', { detail: { error: name } });
        throw err;
      }
      await methods.reportExecution(question.id, 'SUCCEEDED');
      return result;
    },
  };
  return methods;
}
