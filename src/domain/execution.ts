// From decision to action (API.md §23): an APPROVED question is used once (consumed) by its
// asker or a named executor, within `action.validSeconds` of the decision, and then its outcome
// is reported once. The store makes "once" atomic; the rules that read only immutable facts of
// a resolved question (who may, what was approved, when) live here.
import { isExecutor } from './access.ts';
import { decisionOf } from './approval.ts';
import type { AuditDetail } from './audit.ts';
import { jcsDigest } from './digest.ts';
import { badInput, DomainError } from './errors.ts';
import { isJsonValue } from './json-schema.ts';
import { EXECUTION_DETAIL_MAX_BYTES, utf8ByteLength } from './limits.ts';
import type { Principal } from './principal.ts';
import type { ExecutionOutcome, JsonObject, QuestionRecord } from './question.ts';
// The model's part (what the record holds) lives with the question, so the inbox can use it.
import { EXECUTION_OUTCOMES } from './question.ts';
import { isPlainObject } from './values.ts';

export { EXECUTION_OUTCOMES, type Execution, type ExecutionOutcome } from './question.ts';

/** What a checked report stores. */
export interface ExecutionReport {
  outcome: ExecutionOutcome;
  resultDigest: string | null;
  detail: JsonObject | null;
}

/** The claims of a verified receipt that consuming reads (API.md §16). */
export interface ReceiptFacts {
  sub?: unknown;
  outcome?: { approvedActionDigest?: unknown } | unknown;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

function forbidden(message: string, field?: string): DomainError {
  return new DomainError('FORBIDDEN', message, field);
}

/** The asker or an executor named by the asker; nobody else uses an approval. */
export function mayExecute(p: Principal, q: QuestionRecord): boolean {
  return (!p.restricted && q.askedBy === p.id) || isExecutor(p, q);
}

/**
 * Whether `q` may be consumed now by `p` with a receipt whose claims are `facts` (its signature
 * already verified): everything but "not yet used", which the store decides atomically.
 */
export function checkConsumable(
  p: Principal,
  q: QuestionRecord,
  facts: ReceiptFacts,
  actionDigest: string | null,
  now: number,
): void {
  if (!mayExecute(p, q)) throw forbidden('only the asker or a named executor may use this approval');
  if (facts.sub !== q.id) throw forbidden('the receipt is for another question', 'receipt');
  if (q.status !== 'ANSWERED' || q.format !== 'APPROVAL' || decisionOf(q) !== 'APPROVED') {
    throw forbidden('not approved');
  }
  if (actionDigest !== null) {
    const approved = isPlainObject(facts.outcome) ? facts.outcome.approvedActionDigest : undefined;
    if (approved !== actionDigest) {
      throw forbidden('the action digest differs from the approved one', 'actionDigest');
    }
  }
  const valid = q.action?.validSeconds;
  if (valid != null && q.answeredAt !== null && now > q.answeredAt + valid * 1000) {
    throw new DomainError('QUESTION_CLOSED', 'expired: the approval was valid for a limited time');
  }
}

/** A report's fields, checked: the outcome, an optional `sha256:` digest, detail ≤ 8 KiB. */
export function checkReport(outcome: unknown, resultDigest: unknown, detail: unknown): ExecutionReport {
  if (typeof outcome !== 'string' || !(EXECUTION_OUTCOMES as readonly string[]).includes(outcome)) {
    throw badInput('outcome must be SUCCEEDED or FAILED', 'outcome');
  }
  let digest: string | null = null;
  if (resultDigest !== undefined && resultDigest !== null) {
    if (typeof resultDigest !== 'string' || !DIGEST.test(resultDigest)) {
      throw badInput('resultDigest must be "sha256:" and 64 lowercase hex digits', 'resultDigest');
    }
    digest = resultDigest;
  }
  let kept: JsonObject | null = null;
  if (detail !== undefined && detail !== null) {
    if (!isPlainObject(detail) || !isJsonValue(detail))
      throw badInput('detail must be a JSON object', 'detail');
    if (utf8ByteLength(JSON.stringify(detail)) > EXECUTION_DETAIL_MAX_BYTES) {
      throw badInput(`detail must be at most ${EXECUTION_DETAIL_MAX_BYTES} bytes as JSON (UTF-8)`, 'detail');
    }
    kept = JSON.parse(JSON.stringify(detail)) as JsonObject;
  }
  return { outcome: outcome as ExecutionOutcome, resultDigest: digest, detail: kept };
}

/** The CONSUMED entry's facts: which approval was used (digests only). */
export function consumedAuditDetail(q: QuestionRecord, receiptDigest: string): AuditDetail {
  return { actionDigest: q.action?.digest ?? null, receiptDigest };
}

/** The EXECUTED entry's facts: the outcome and digests, never the detail itself. */
export function executedAuditDetail(r: ExecutionReport): AuditDetail {
  return {
    outcome: r.outcome,
    resultDigest: r.resultDigest,
    detailDigest: r.detail ? jcsDigest(r.detail) : null,
  };
}
