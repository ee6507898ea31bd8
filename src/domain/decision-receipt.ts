// What a decision receipt states (API.md §16): who asked what, and how it ended — digests and
// small facts only, never the answer itself (it may be sensitive). The claims are a pure
// function of the resolved record, so any instance signs the same bytes for the same question,
// at any time: `iat` is the moment it left PENDING and `jti` is derived from the question id.
import { actionDigest, approvedArgumentsOf, decisionOf } from './approval.ts';
import { jcsDigest } from './digest.ts';
import type { AnswerEvidence, ClosedStatus, Decision, QuestionRecord } from './question.ts';
import { isoTime } from './question-view.ts';

export interface ReceiptQuestionClaims {
  format: QuestionRecord['format'];
  askedBy: string;
  createdAt: string;
  textDigest: string;
  /** APPROVAL: the digest of {name, arguments} as proposed (Action.digest). */
  actionDigest?: string;
}

export interface ReceiptOutcomeClaims {
  status: ClosedStatus;
  /** APPROVAL and CONFIRM, when ANSWERED (never after a timeout: a timeout decides nothing). */
  decision?: Decision;
  /** APPROVAL, when APPROVED: the digest of {name, arguments} as approved (after edits). */
  approvedActionDigest?: string;
  /** The digest of the recorded answer; absent for sensitive questions and without an answer. */
  answerDigest?: string;
  answeredBy?: string;
  /** A delegate's answer (API.md §22): the person `answeredBy` answered for. */
  onBehalfOf?: string;
  /** The door the answer came through: `api` (a key), `callback`, or `channel:<name>`. */
  via?: string;
  /** When it left PENDING. */
  at: string;
  /** Decided by a policy rule (API.md §20): the rule and the version that decided. */
  policy?: { id: string; version: string };
  /** APPROVAL (API.md §23): what the deciding person was shown, and their passkey step-up. */
  presentedDigest?: string;
  assurance?: string;
  credentialId?: string;
  /** Questions with a quorum: every vote cast, oldest first (notes are left out). */
  votes?: ReceiptVote[];
}

export interface ReceiptVote {
  by: string;
  decision: Decision;
  at: string;
  onBehalfOf?: string;
  presentedDigest?: string;
  assurance?: string;
  credentialId?: string;
}

export interface ReceiptClaims {
  iss: string;
  /** The question id. */
  sub: string;
  /** Seconds since the epoch: when the question left PENDING. */
  iat: number;
  jti: string;
  question: ReceiptQuestionClaims;
  outcome: ReceiptOutcomeClaims;
}

/** A receipt's unique id: one receipt per question, since a question resolves once. */
export function receiptIdOf(questionId: string): string {
  return `receipt:${questionId}`;
}

function viaOf(q: QuestionRecord): string | undefined {
  if (q.answeredBy === null) return undefined;
  if (q.answeredBy === 'callback') return 'callback';
  if (q.answeredBy.startsWith('policy:')) return 'policy';
  // Put to the asker's own user by its MCP client (elicitation, API.md §13.1).
  if (q.answeredBy.startsWith('mcp:')) return 'mcp';
  if (q.channel !== null && q.answeredBy.startsWith(`${q.channel}:`)) return `channel:${q.channel}`;
  return 'api';
}

/** An answer's or a vote's evidence as receipt claims (API.md §23); nothing when it has none. */
function evidenceClaims(e: AnswerEvidence | undefined): Partial<ReceiptVote> {
  if (!e) return {};
  return {
    ...(e.presentedDigest ? { presentedDigest: e.presentedDigest } : {}),
    ...(e.assurance ? { assurance: e.assurance } : {}),
    ...(e.credentialId ? { credentialId: e.credentialId } : {}),
  };
}

/** The claims of a resolved question's receipt; null while it is pending. */
export function receiptClaimsOf(q: QuestionRecord, issuer: string): ReceiptClaims | null {
  if (q.status === 'PENDING') return null;
  const at = q.answeredAt ?? q.closedAt ?? q.createdAt;
  const outcome: ReceiptOutcomeClaims = { status: q.status, at: isoTime(at) };
  if (q.status === 'ANSWERED') {
    // A sensitive answer is never stored, and even its digest would give away a yes or a no.
    if (!q.sensitive && q.answer !== null && q.answer !== undefined)
      outcome.answerDigest = jcsDigest(q.answer);
    const via = viaOf(q);
    if (q.answeredBy !== null) outcome.answeredBy = q.answeredBy;
    if (q.onBehalfOf) outcome.onBehalfOf = q.onBehalfOf;
    if (via !== undefined) outcome.via = via;
    // A sensitive question's decision is its answer, so it stays out like the answer's digest.
    const decision = q.sensitive ? null : decisionOf(q);
    if (decision !== null) outcome.decision = decision;
    const approved = q.sensitive ? null : approvedArgumentsOf(q);
    if (approved !== null && q.action) outcome.approvedActionDigest = actionDigest(q.action.name, approved);
    Object.assign(outcome, evidenceClaims(q.evidence));
    if (q.policy && q.answeredBy === `policy:${q.policy.ruleId}`) {
      outcome.policy = { id: q.policy.ruleId, version: q.policy.version };
    }
  }
  if (q.votes && q.votes.length > 0) {
    outcome.votes = q.votes.map((v) => ({
      by: v.by,
      decision: v.decision,
      at: isoTime(v.at),
      ...(v.onBehalfOf ? { onBehalfOf: v.onBehalfOf } : {}),
      ...evidenceClaims(v),
    }));
  }
  return {
    iss: issuer,
    sub: q.id,
    iat: Math.floor(at / 1000),
    jti: receiptIdOf(q.id),
    question: {
      format: q.format,
      askedBy: q.askedBy,
      createdAt: isoTime(q.createdAt),
      textDigest: jcsDigest(q.text),
      ...(q.action ? { actionDigest: q.action.digest } : {}),
    },
    outcome,
  };
}
