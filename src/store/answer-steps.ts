// The inputs and results of the store's answer steps (API.md §3, §7, §9, §15): the one claim
// guard, a vote, and the two one-step answers (the callback door's ticket step, a channel
// click). Part of the QuestionStore contract (types.ts).
import type { OneStepAnswer } from '../domain/channel-answer.ts';
import type {
  AnswerEvidence,
  ClosedStatus,
  JsonObject,
  QuestionRecord,
  QuorumSpec,
  Vote,
} from '../domain/question.ts';
import type { QuestionWithDelivery } from './types.ts';

export interface ClaimInput {
  status: ClosedStatus;
  /** Stored on the record; pass null for sensitive questions. */
  answer?: unknown;
  /** A sensitive answer: kept only in the one-read reply slot, never on the record. */
  reply?: unknown;
  answeredBy?: string | null;
  /** A delegate's answer (API.md §22): the person `answeredBy` answered for. */
  onBehalfOf?: string | null;
  /** An APPROVAL answer's evidence (API.md §23): on the record and in the ANSWERED entry. */
  evidence?: AnswerEvidence | null;
  /** Who cancelled (for the audit entry; answers name answeredBy). */
  actor?: string | null;
  cancelReason?: string | null;
  /** A rule's decision (API.md §20): its audit entry is DECIDED_BY_POLICY with these facts, not ANSWERED. */
  policy?: { ruleId: string; version: string; effect: string; actionDigest: string } | null;
  now: number;
  retentionMs: number;
}

export type ClaimResult =
  | { kind: 'won'; question: QuestionRecord }
  /** Someone else resolved it first (or it was past its deadline: then it is TIMED_OUT now). */
  | { kind: 'lost'; question: QuestionRecord }
  | { kind: 'missing' };

/** One vote on a question with a quorum (API.md §15), with what decides it. */
export interface VoteInput {
  vote: Vote;
  /** The question's quorum (from its spec): the thresholds and the allow-list. */
  quorum: QuorumSpec;
  /** The answer recorded if this vote reaches its decision's threshold (answeredBy: vote.by). */
  answer: unknown;
  now: number;
  retentionMs: number;
}

export type VoteResult =
  /** Recorded; the question is still PENDING (UPDATED was announced). */
  | { kind: 'counted'; question: QuestionRecord }
  /** Recorded, and it reached the threshold: the question is ANSWERED with `answer`. */
  | { kind: 'decided'; question: QuestionRecord }
  /** This identity has voted already: nothing changed. */
  | { kind: 'voted'; question: QuestionRecord }
  /** The identity is not among the quorum's voters: nothing changed. */
  | { kind: 'forbidden' }
  /** Not pending any more (or past its deadline: then it is TIMED_OUT now). */
  | { kind: 'lost'; question: QuestionRecord }
  | { kind: 'missing' };

/** What the callback door's one-step answer knows: the answer is already checked by the caller. */
export interface PlainAnswerInput {
  answer: JsonObject;
  answeredBy: string;
  now: number;
  retentionMs: number;
}

/** A fixed-window request counter counted in the same step (the callback door's rate limit). */
export interface RateCount {
  /** The counter's key under the store's prefix (e.g. `ratelimit:<client address>`). */
  key: string;
  windowMs: number;
  max: number;
}

/** The counter after this request: its count in the window and the window's time left. */
export interface RateHits {
  count: number;
  ttlMs: number;
}

export type TicketStepResult = (
  | { kind: 'won' }
  /** Resolved before (or past its deadline: then it is TIMED_OUT now). */
  | { kind: 'lost'; status: ClosedStatus }
  /** Not claimed here (no answer offered, or not a plain EXTERNAL question): nothing changed. */
  | { kind: 'other'; question: QuestionRecord }
  | { kind: 'missing' }
  /** Over the counter's max: nothing else was looked at. */
  | { kind: 'limited' }
) & { hits: RateHits | null };

export interface TicketStep {
  /** Claim with this answer if the ticket names a plain EXTERNAL question still pending. */
  answer?: PlainAnswerInput;
  /** Count the request first (and stop there over the max). */
  count?: RateCount;
}

/** A channel click the engine could answer without reading the question (domain/channel-answer.ts). */
export interface ChannelAnswerInput extends OneStepAnswer {
  /** The channel instance the click came through. */
  place: string;
  /** `<place>:<provider user id>`. */
  answeredBy: string;
  now: number;
  retentionMs: number;
}

export type ChannelAnswerResult =
  /** Claimed as ANSWERED with the input's answer, exactly as claim() would. */
  | ({ kind: 'won' } & QuestionWithDelivery)
  /**
   * Not claimed here, nothing changed (unless it was past its deadline: then it is TIMED_OUT
   * now): the question as it is and `place`'s delivery, as getWithDelivery reads them, for the
   * door's full path. Not pending, or not one takesOneStepAnswer accepts.
   */
  | ({ kind: 'other' } & QuestionWithDelivery)
  | { kind: 'missing' };
