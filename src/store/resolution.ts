// The resolution a claim writes, built once for both stores so they cannot drift.
import { type AuditDetail, type AuditEntryType, answerAuditDetail } from '../domain/audit.ts';
import type { Resolution } from '../domain/question.ts';
import type { ChannelAnswerInput, ClaimInput } from './types.ts';

/** What a claim records: answers carry who and when; timeouts and cancels carry closedAt. */
export function resolutionOf(input: ClaimInput): Resolution {
  const answered = input.status === 'ANSWERED';
  const r: Resolution = {
    status: input.status,
    answer: answered ? (input.answer ?? null) : null,
    answeredBy: answered ? (input.answeredBy ?? null) : null,
    answeredAt: answered ? input.now : null,
    closedAt: answered ? null : input.now,
    cancelReason: input.status === 'CANCELLED' ? (input.cancelReason ?? null) : null,
  };
  // Only a delegate's answer carries it (API.md §22): other records keep their shape.
  if (answered && input.onBehalfOf) r.onBehalfOf = input.onBehalfOf;
  return r;
}

/** The resolution of a question whose deadline passed (the reaper's, or a late claim's). */
export function timedOutResolution(now: number): Resolution {
  return resolutionOf({ status: 'TIMED_OUT', now, retentionMs: 0 });
}

/** What a claim's audit entry says of who and what (resolve() adds the format and the door). */
export interface ClaimAudit {
  actor: string | null;
  detail: AuditDetail;
  /** The entry's type when it is not the status: a rule's decision. */
  type?: AuditEntryType;
}

/** The audit facts of a claim: an answer's author, digest and decision; a cancel's author. */
export function claimAuditOf(input: ClaimInput): ClaimAudit {
  if (input.status === 'ANSWERED' && input.policy) {
    const { ruleId, version, effect, actionDigest } = input.policy;
    return {
      actor: input.answeredBy ?? null,
      detail: { ...answerAuditDetail(input.answer), ruleId, version, effect, actionDigest },
      type: 'DECIDED_BY_POLICY',
    };
  }
  if (input.status === 'ANSWERED') {
    const detail = answerAuditDetail(input.answer);
    if (input.onBehalfOf) detail.onBehalfOf = input.onBehalfOf;
    return { actor: input.answeredBy ?? null, detail };
  }
  if (input.status === 'CANCELLED') return { actor: input.actor ?? null, detail: {} };
  return { actor: null, detail: {} };
}

/** The claim a one-step channel answer makes (channelAnswer), the same on both stores. */
export function oneStepClaimOf(input: ChannelAnswerInput): ClaimInput {
  return {
    status: 'ANSWERED',
    answer: input.answer,
    answeredBy: input.answeredBy,
    now: input.now,
    retentionMs: input.retentionMs,
  };
}
