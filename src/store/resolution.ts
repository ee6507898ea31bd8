// The resolution a claim writes, built once for both stores so they cannot drift.
import {
  type AuditDetail,
  type AuditEntryType,
  answerAuditDetail,
  evidenceAuditDetail,
} from '../domain/audit.ts';
import type { AnswerEvidence, Resolution, Vote } from '../domain/question.ts';
import type { ChannelAnswerInput, ClaimInput, VoteInput } from './types.ts';

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
  if (answered && input.evidence) r.evidence = input.evidence;
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
    const detail: AuditDetail = {
      ...answerAuditDetail(input.answer),
      ...evidenceAuditDetail(input.evidence),
    };
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

/** The evidence a vote carries (API.md §23), or null when it carries none. */
export function evidenceOfVote(v: Vote): AnswerEvidence | null {
  const e: AnswerEvidence = {};
  if (v.presentedDigest) e.presentedDigest = v.presentedDigest;
  if (v.assurance) e.assurance = v.assurance;
  if (v.credentialId) e.credentialId = v.credentialId;
  return Object.keys(e).length > 0 ? e : null;
}

/** A vote's own VOTED entry: who decided what, with what they were shown — never the note. */
export function votedAuditDetail(v: Vote): AuditDetail {
  const detail: AuditDetail = { decision: v.decision, ...evidenceAuditDetail(evidenceOfVote(v)) };
  // A delegate's vote (API.md §22): the person whose one vote it is.
  if (v.onBehalfOf) detail.onBehalfOf = v.onBehalfOf;
  return detail;
}

/** What a vote that reaches its threshold writes: the resolution and its ANSWERED entry's facts. */
export function voteDecisionOf(input: VoteInput): { resolution: Resolution; detail: AuditDetail } {
  const claim: ClaimInput = {
    status: 'ANSWERED',
    answer: input.answer,
    answeredBy: input.vote.by,
    onBehalfOf: input.vote.onBehalfOf ?? null,
    evidence: evidenceOfVote(input.vote),
    now: input.now,
    retentionMs: input.retentionMs,
  };
  return { resolution: resolutionOf(claim), detail: claimAuditOf(claim).detail };
}
