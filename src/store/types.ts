// The QuestionStore contract. Two implementations (memory, redis) pass one shared suite.
// Every state change is one atomic step that also publishes its announcement.

import type { EscalationAction, FiredStep } from '../domain/escalation.ts';
import type { QuestionRecord, QuestionSpec, QuestionStatus } from '../domain/question.ts';
import type { QuotaLimit, Usage } from '../domain/quotas.ts';
import type { AuditLog } from './audit.ts';
import type { DelegationStore } from './delegations.ts';
import type { ChannelDeliveries } from './deliveries.ts';
import type { ConsumeInput, ConsumeResult, ReportInput, ReportResult } from './execution.ts';
import type { GrantStore } from './grants.ts';
import type { ShortLinks } from './links.ts';
import type { Outbox } from './outbox-port.ts';
import type { PeopleStore } from './people.ts';
import type { PolicyStore } from './policies.ts';

/** How long a sensitive answer stays readable by its asker after the first read. */
export const REPLY_GRACE_MS = 60_000;

/** UPDATED: the question changed but is still PENDING (a vote, §15; an escalation step fired, §18). */
export type StoreEventType = 'ASKED' | 'UPDATED' | 'ANSWERED' | 'TIMED_OUT' | 'CANCELLED';

/** What every consumer of an announcement may read without decoding the whole question. */
export type EventHead = Pick<
  QuestionRecord,
  'id' | 'format' | 'createdAt' | 'answeredAt' | 'closedAt' | 'answeredBy'
>;

export interface StoreEvent {
  type: StoreEventType;
  /** The question's id, format and times, as they are after the change. */
  head: EventHead;
  /**
   * The question as it is after the change (sensitive answers are never in it). The Redis
   * store decodes it on first read: most resolutions concern no waiter or feed of this process.
   */
  readonly question: QuestionRecord;
  /** Whether the change enqueued follow-ups, when the store knows; else judge by the question. */
  followUps?: boolean;
}

/** The announcement of a question already decoded. */
export function eventOf(type: StoreEventType, question: QuestionRecord): StoreEvent {
  return { type, head: question, question };
}

export interface StoreListener {
  /** One announced change. */
  event(e: StoreEvent): void;
  /** Announcements may have been lost (the subscriber reconnected): re-read what you hold. */
  resync(): void;
}

/** What a fired step's audit entry says besides its outcome (never a failure's text). */
export interface EscalationAudit {
  action: EscalationAction;
  /** REROUTE: the channel it delivered to. */
  channel: string | null;
}

export interface CreateOptions {
  /** Most questions pending at once, all callers together. */
  maxPending: number;
  /**
   * Most questions the asker (spec.askedBy) may have pending, its live prepareExternal
   * reservations included (the one this create consumes becomes the question); no cap when absent.
   */
  maxPendingPerPrincipal?: number;
  /** Most media bytes (domain/quotas mediaBytesOf) of the asker's pending questions; no cap when absent. */
  maxMediaBytesPerPrincipal?: number;
  /** Most media bytes of every pending question together; no cap when absent. */
  maxMediaBytes?: number;
  /** How long a resolved question stays readable. */
  retentionMs: number;
  /** SHA-256 (hex) of the callback ticket, when the question has one. */
  ticketHash?: string | null;
  /** Consume this prepareExternal reservation (its ticket becomes the question's). */
  preparedId?: string | null;
  /** Outbox targets (e.g. `channel:ops-slack`): one item each is enqueued when it resolves. */
  followUps?: readonly string[] | null;
  /**
   * Outbox targets enqueued at once, in the same step as the question (e.g. `push`, API.md §19).
   * Best effort: while the outbox is at `maxOutbox` they are skipped, never refusing the ask.
   */
  askFollowUps?: readonly string[] | null;
  /**
   * A question with follow-ups is refused (limit `outbox`) while the outbox holds this many
   * items or more; no cap when absent. Resolutions always enqueue (see outbox.ts).
   */
  maxOutbox?: number;
  /**
   * When each step of the question's escalation ladder is due (epoch ms, step order): each is
   * a durable timer written in the same step, moved to the outbox by `escalateDue`.
   */
  escalationDue?: readonly number[] | null;
  /**
   * The idempotency key joins its question only while that one is PENDING; a decided or closed
   * one is left alone and the key moves to the new question (the agent hooks of API.md §21: a
   * retry joins the open question, an approval is never replayed).
   */
  joinWhilePending?: boolean;
}

export type CreateResult =
  | { kind: 'created'; question: QuestionRecord }
  /** The asker's idempotency key already named a question: that one, unchanged. */
  | { kind: 'existing'; question: QuestionRecord }
  /** A cap would be passed: nothing was stored. */
  | { kind: 'limit'; limit: QuotaLimit }
  /** preparedId named no live reservation. */
  | { kind: 'no-reservation' };

// The answer steps' inputs and results (claim, vote, the two one-step answers) live in
// answer-steps.ts; importers keep reading them from here.
export type {
  ChannelAnswerInput,
  ChannelAnswerResult,
  ClaimInput,
  ClaimResult,
  PlainAnswerInput,
  RateCount,
  RateHits,
  TicketStep,
  TicketStepResult,
  VoteInput,
  VoteResult,
} from './answer-steps.ts';

import type {
  ChannelAnswerInput,
  ChannelAnswerResult,
  ClaimInput,
  ClaimResult,
  TicketStep,
  TicketStepResult,
  VoteInput,
  VoteResult,
} from './answer-steps.ts';

export interface ListFilter {
  status?: readonly QuestionStatus[] | null;
  groupId?: string | null;
  audience?: string | null;
  channel?: string | null;
  askedBy?: string | null;
  /**
   * On-call questions the rotation routed to this person when they were asked (`routedTo`,
   * API.md §22): set by the engine for a delegate's listing, never by a caller's filter.
   */
  routedTo?: string | null;
}

export interface PageRequest {
  first: number;
  /** Opaque cursor from a previous page's endCursor. */
  after?: string | null;
}

export interface Page {
  items: QuestionRecord[];
  totalCount: number;
  hasNextPage: boolean;
  endCursor: string | null;
}

/** What `seenOnce` found: whether this call was the first to see the key, and when that was. */
export interface SeenOnce {
  first: boolean;
  at: number;
}

/** Longest key `seenOnce` takes. */
export const MAX_SEEN_KEY_CHARS = 512;

/** The engine passes checked keys and a positive lifetime; anything else is a programming error. */
export function checkSeenKey(key: string, ttlMs: number): void {
  if (key.length === 0 || key.length > MAX_SEEN_KEY_CHARS) {
    throw new RangeError(`a seenOnce key is 1 to ${MAX_SEEN_KEY_CHARS} characters`);
  }
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1)
    throw new RangeError('a seenOnce lifetime is a positive integer');
}

export interface Reservation {
  id: string;
  /** The principal who prepared it: it counts against that principal's pending cap until asked or expired. */
  owner: string;
  ticketHash: string;
  expiresAt: number;
}

export interface ReserveOptions {
  /** Most questions plus live reservations the owner may hold; no cap when absent. */
  maxPendingPerPrincipal?: number;
  now: number;
}

/** `limit`: the owner's pending questions and reservations are at the cap; nothing was stored. */
export type ReserveResult = 'reserved' | 'limit';

export interface QuestionWithDelivery {
  question: QuestionRecord;
  /** Undefined while nothing is recorded (delivery may still be in flight). */
  delivery: Awaited<ReturnType<ChannelDeliveries['get']>>;
}

/** The outbox's types live in outbox-port.ts; importers keep reading them from here. */
export type { DeadLetter, DeadNote, Outbox, OutboxItem } from './outbox-port.ts';

export interface QuestionStore {
  readonly kind: 'memory' | 'redis';
  /** Follow-ups of resolved questions (enqueued by create's followUps and the claim). */
  readonly outbox: Outbox;
  /** What channels returned on delivery, kept with each question and indexed per channel. */
  readonly deliveries: ChannelDeliveries;
  /** Short redirects for channels' long links, each living as long as its question. */
  readonly links: ShortLinks;
  /** Sign-in sessions, logins in flight, principals' names and push subscriptions (API.md §19). */
  readonly people: PeopleStore;
  /** Store policy rules (API.md §20). */
  readonly policies: PolicyStore;
  /** Grants given while approving (API.md §20). */
  readonly grants: GrantStore;
  /** Delegations and out-of-office (API.md §22). */
  readonly delegations: DelegationStore;
  /** The hash-chained audit log (API.md §17): every change's entry, written by its own step. */
  readonly audit: AuditLog;
  /**
   * Atomically: idempotency check, the pending and media caps, write record + indexes + ticket,
   * count the question against its asker, publish ASKED. The resolution releases the count.
   */
  create(spec: QuestionSpec, opts: CreateOptions): Promise<CreateResult>;
  /** What the pending backlog holds for one principal (as asker) and in total. */
  usage(principalId: string): Promise<Usage>;
  /** The single guard every resolution goes through: exactly one claim of a pending question wins. */
  claim(id: string, input: ClaimInput): Promise<ClaimResult>;
  /**
   * One vote, atomically: the question pending and within its deadline, the identity allowed
   * and not yet voted, the vote recorded and announced (UPDATED); at the threshold (quorum
   * approvals of APPROVED, or rejections of REJECTED) it resolves ANSWERED exactly as a claim
   * does, and the resolution is announced instead.
   */
  vote(id: string, input: VoteInput): Promise<VoteResult>;
  /**
   * Uses an ANSWERED question's approval (API.md §23), atomically and at most once: the record's
   * `execution` {consumedAt, consumedBy} and the CONSUMED audit entry are written together.
   */
  consume(id: string, input: ConsumeInput): Promise<ConsumeResult>;
  /**
   * Records what a consumed approval's use did, atomically and at most once: the outcome on
   * `execution`, the EXECUTED audit entry and the report's follow-ups are written together.
   */
  report(id: string, input: ReportInput): Promise<ReportResult>;
  get(id: string): Promise<QuestionRecord | null>;
  /**
   * The question and what its delivery to `place` recorded (as `deliveries.get(id, place)`), in
   * one read: a channel's inbound door needs both for every click.
   */
  getWithDelivery(id: string, place?: string): Promise<QuestionWithDelivery | null>;
  getMany(ids: readonly string[]): Promise<(QuestionRecord | null)[]>;
  /**
   * Each question's status, null where its record is gone: what the engine's sweep of its held
   * questions needs, without reading and decoding every record (it reads the few resolved ones).
   */
  statuses(ids: readonly string[]): Promise<(QuestionStatus | null)[]>;
  /** Every pending question matching the filter, oldest first. */
  pending(filter: ListFilter): Promise<QuestionRecord[]>;
  /** The ids of every pending question matching the filter, oldest first (read records with getMany). */
  pendingIds(filter: ListFilter): Promise<string[]>;
  /** How many questions are pending in the whole deployment (a count, not a listing). */
  countPending(): Promise<number>;
  /** Questions matching the filter, newest first, paged; totalCount counts every match. */
  list(filter: ListFilter, page: PageRequest): Promise<Page>;
  /** The question a ticket hash names, while the ticket is alive (one round trip). */
  questionForTicket(ticketHash: string): Promise<QuestionRecord | null>;
  /**
   * The callback door in one atomic step (one round trip): count the request when asked (over
   * the max: stop), then the question a live ticket names and, if an answer is offered and it
   * is a plain EXTERNAL question (isPlainExternal) still pending, its claim as ANSWERED, exactly
   * as claim() would. Any other question: unchanged, returned as `other`.
   */
  ticketStep(ticketHash: string, step: TicketStep): Promise<TicketStepResult>;
  /**
   * A channel's inbound door in one atomic step (one round trip): question `id` and what its
   * delivery to `input.place` recorded and, if it is still pending, within its deadline and
   * takesOneStepAnswer(spec, place, format) holds, its claim as ANSWERED with the input's
   * answer, exactly as claim() would (the audit entry's actor `answeredBy`, via
   * `channel:<place>`). Anything else: unchanged, returned as `other`.
   */
  channelAnswer(id: string, input: ChannelAnswerInput): Promise<ChannelAnswerResult>;
  /**
   * A reservation for prepareExternal: its ticket resolves to nothing until the question is
   * asked. Atomically: the owner's pending questions and live reservations are checked against
   * the cap, then it is stored; it counts against the cap until it is asked (then the question
   * counts instead) or expires. create() counts them too.
   */
  reserve(reservation: Reservation, opts: ReserveOptions): Promise<ReserveResult>;
  /**
   * The sensitive answer for its asker. The first call starts the store's reply grace
   * (REPLY_GRACE_MS unless configured): calls within it return the answer again, so a
   * re-attach after an undelivered response still gets it; after it, undefined.
   */
  takeReply(id: string): Promise<{ value: unknown } | undefined>;
  /** Claim every question whose deadline has passed as TIMED_OUT (at most `limit`); returns how many. */
  expireDue(now: number, retentionMs: number, limit: number): Promise<number>;
  /**
   * A further callback ticket (SHA-256 hex) for a question still PENDING, living as long as its
   * record: an escalation step's new delivery hands out a callback URL of its own. False when
   * the question is no longer pending or gone (nothing stored).
   */
  addTicket(id: string, ticketHash: string): Promise<boolean>;
  /**
   * The escalation steps due at `now` (at most `limit`), each in one atomic step shared by every
   * instance: a step of a question still PENDING becomes the outbox item
   * `<id>:escalate:<index>` (due now, so exactly one worker performs it); a step of a question
   * that is no longer pending (or gone) is dropped. Returns how many were moved. A resolution
   * drops its question's steps that are not yet due in the same step as the claim.
   */
  escalateDue(now: number, limit: number): Promise<number>;
  /**
   * Records a fired step's firedAt and outcome once (a second record of the same step changes
   * nothing and returns false), in one step that announces UPDATED while the question is
   * PENDING and appends its audit entry (REMINDED or ESCALATED, API.md §17). False too when the
   * question is gone.
   */
  recordEscalation(id: string, step: number, fired: FiredStep, audit: EscalationAudit): Promise<boolean>;
  /** What each fired step recorded, by step index (steps not fired yet are absent). */
  escalations(id: string): Promise<ReadonlyMap<number, FiredStep>>;
  /** Drop index entries and history past retention. */
  prune(now: number, retentionMs: number): Promise<void>;
  /**
   * Records that the inbound message `key` (e.g. `<channel>:<provider message id>`) was seen at
   * `now`, kept `ttlMs`, in one atomic step shared by every instance: `first` for exactly one
   * caller per key within its lifetime; `at` is when it was first seen.
   */
  seenOnce(key: string, now: number, ttlMs: number): Promise<SeenOnce>;
  /** Receive every announcement (from every process sharing the store). Resolves once listening. */
  listen(listener: StoreListener): Promise<() => void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
