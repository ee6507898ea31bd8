// The store's two steps of an approval's use (API.md §23), shared by both stores: consume (at
// most once) and report (at most once, after a consume), each with its audit entry in the same
// atomic step. Callers have checked everything that cannot change on a resolved question.
import type { AuditDetail } from '../domain/audit.ts';
import type { ExecutionReport } from '../domain/execution.ts';
import type { QuestionRecord } from '../domain/question.ts';

export interface ConsumeInput {
  /** The principal who uses the approval. */
  by: string;
  now: number;
  /** The CONSUMED entry's facts (digests only). */
  audit: AuditDetail;
}

export type ConsumeResult =
  /** This call used the approval: `question.execution` holds who and when. */
  | { kind: 'consumed'; question: QuestionRecord }
  /** It was used before: nothing changed. */
  | { kind: 'used'; question: QuestionRecord }
  /** Not ANSWERED (the caller checked the decision; the status is checked again here). */
  | { kind: 'closed'; question: QuestionRecord }
  | { kind: 'missing' };

export interface ReportInput {
  by: string;
  now: number;
  report: ExecutionReport;
  /** The EXECUTED entry's facts (digests only, never the detail). */
  audit: AuditDetail;
  /** Outbox targets the report enqueues (`executed:<endpoint>`, API.md §12), in the same step. */
  followUps: readonly string[];
}

export type ReportResult =
  | { kind: 'reported'; question: QuestionRecord }
  /** Reported before: nothing changed. */
  | { kind: 'duplicate'; question: QuestionRecord }
  /** Not consumed yet: nothing changed. */
  | { kind: 'unconsumed'; question: QuestionRecord }
  | { kind: 'missing' };

/** The execution fields a report adds, as stored (JSON key order fixed: both stores write these bytes). */
export function reportFields(by: string, now: number, r: ExecutionReport) {
  return {
    outcome: r.outcome,
    reportedAt: now,
    reportedBy: by,
    resultDigest: r.resultDigest,
    detail: r.detail,
  };
}

/** The execution fields a consume writes. */
export function consumeFields(by: string, now: number) {
  return { consumedAt: now, consumedBy: by };
}
