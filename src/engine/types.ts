// The Interactions service as every surface sees it. Surfaces call these methods only.

import type { InboundRequest } from '../channels/types.ts';
import type { DeadLetterList } from '../domain/dead-letter.ts';
import type { DecisionStatsRow } from '../domain/decision-stats.ts';
import type { EscalationStep } from '../domain/escalation.ts';
import type { ShadowReport } from '../domain/policy/shadow.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord, QuestionStatus } from '../domain/question.ts';
import type { Quota, Usage } from '../domain/quotas.ts';
import type { CallerTrace } from '../domain/trace.ts';
import type { ListFilter, PageRequest, StoreEventType } from '../store/types.ts';
import type { CallbackOutcome, CallbackPage, CallbackRequest } from './answers/callbacks.ts';
import type { PasskeyDoors } from './answers/passkey-doors.ts';
import type { ChannelInboundResult } from './deliveries/inbound.ts';
import type { Execution } from './execution.ts';
import type { ChannelLinking } from './people/linking.ts';
import type { Presence } from './people/presence.ts';
import type { GrantAdmin } from './policies/grants.ts';
import type { PolicyAdmin } from './policies/store-rules.ts';
import type { PolicySuggestions } from './policies/suggestions.ts';
import type { ChannelDetail } from './ports.ts';
import type { AuditReader } from './views/audit.ts';
import type { DecisionStatsArgs } from './views/decision-stats.ts';
import type { CancelSignal } from './waiting/waiters.ts';

export interface AskResult {
  question: QuestionRecord;
  /** PENDING when the hold ended first: call awaitAnswer(question.id). */
  status: QuestionStatus;
  /** The answer, for the asker (a sensitive answer once, then null). */
  answer: unknown;
  /** EXTERNAL/channel questions: shown to the asker only. */
  callbackUrl: string | null;
}

export interface WaitOptions {
  /** Seconds to hold before returning PENDING; default from settings; 0 returns at once. */
  holdSeconds?: number | null;
  /** Aborts the wait (a dropped client), never the question. */
  signal?: CancelSignal;
}

/** Where a held call's outcome goes: exactly one of the two, once, never synchronously. */
export interface HoldSink {
  held(result: AskResult): void;
  failed(error: unknown): void;
}

/** Ends a hold early (a dropped client): the caller then gets the question as it is now. */
export interface HoldHandle {
  cancel(): void;
}

export interface AskOptions extends WaitOptions {
  preparedId?: string | null;
  /**
   * The idempotency key joins its question only while it is PENDING; once decided, the same key
   * asks again (the agent hooks, API.md §21: an approval is never replayed).
   */
  joinWhilePending?: boolean;
  /** The caller's W3C trace headers (API.md §24): the question's wait span continues that trace. */
  trace?: CallerTrace | null;
}

export interface PreparedExternal {
  id: string;
  callbackUrl: string;
  expiresAt: number;
}

/**
 * One event of a feed. The backlog is sent in parts: the SNAPSHOT carries its first batch and
 * the rest follows as ASKED events marked `backlog`; `more` is true on every part but the last.
 */
export type FeedEvent =
  | { type: 'SNAPSHOT'; questions: QuestionRecord[]; more: boolean }
  | { type: StoreEventType; questions: [QuestionRecord]; more: boolean; backlog?: boolean };

export interface FeedListener {
  /** One change the principal may see. */
  event(e: { type: StoreEventType; question: QuestionRecord }): void;
  /** Changes may have been missed: re-read the snapshot. */
  resync(): void;
  /** The engine is stopping: end the feed. */
  close?(): void;
}

/** One question of a page, with the cursor that continues after it (opaque to every surface). */
export interface QuestionEdge {
  node: QuestionRecord;
  cursor: string;
}

/**
 * A page of questions as the engine hands it to the surfaces: each question carries its cursor,
 * so no surface needs to know how the store writes one.
 */
export interface QuestionPage {
  edges: QuestionEdge[];
  /** How many questions match the filter among those the caller may see, on all pages. */
  totalCount: number;
  hasNextPage: boolean;
  /** The last question's cursor; null on an empty page. */
  endCursor: string | null;
}

export interface Interactions extends Execution, PasskeyDoors {
  ask(principal: Principal, input: unknown, opts?: AskOptions): Promise<AskResult>;
  /** What the principal's pending questions hold, and the caps its asks are checked against. */
  quota(principal: Principal): Promise<{ usage: Usage; limits: Quota }>;
  /** Reserve an id and callback URL for a link the caller builds (askUser with preparedId). */
  prepareExternal(principal: Principal, timeoutSeconds?: number | null): Promise<PreparedExternal>;
  awaitAnswer(principal: Principal, id: string, opts?: WaitOptions): Promise<AskResult>;
  /**
   * awaitAnswer for a caller that keeps nothing suspended while it waits (the held /graphql
   * call): the result, or the error awaitAnswer would throw, goes to `sink` once, never
   * synchronously. The handle ends the wait early (a dropped client), never the question.
   */
  holdAnswer(
    principal: Principal,
    id: string,
    opts: { holdSeconds?: number | null },
    sink: HoldSink,
  ): HoldHandle;
  answer(principal: Principal, id: string, answer: unknown): Promise<QuestionRecord>;
  cancel(principal: Principal, id: string, reason?: string | null): Promise<QuestionRecord>;
  /** The asker's own user answers in the asker's MCP client (answeredBy `mcp:<principal id>`). */
  answerHere(principal: Principal, id: string, answer: unknown): Promise<QuestionRecord>;
  /** True the first time this principal uses `key` within `ttlMs` (a signed state's nonce). */
  useOnce(principal: Principal, key: string, ttlMs: number): Promise<boolean>;
  get(principal: Principal, id: string): Promise<QuestionRecord | null>;
  list(principal: Principal, filter: ListFilter, page: PageRequest): Promise<QuestionPage>;
  /** Every pending question the principal may see, oldest first. */
  pending(principal: Principal): Promise<QuestionRecord[]>;
  /** The same, read in batches of about `budgetBytes` (see backlog.ts). */
  backlog(principal: Principal, budgetBytes?: number): AsyncGenerator<QuestionRecord[]>;
  /** Live changes the principal may see. Returns the unsubscribe function. */
  watch(principal: Principal, listener: FeedListener): () => void;
  /** Subscribe to the store's announcements and start the reaper. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Whether the store answers. */
  ready(): Promise<boolean>;
  /** Names of the registered channels. */
  channels(): string[];
  /** The registered channels with their plugin and whether each is ready. */
  channelDetails(): ChannelDetail[];
  /**
   * The size cap of a channel's inbound door as its plugin declares it (bounded by
   * CHANNEL_INBOUND_MAX_BYTES, or CHANNEL_INBOUND_STREAM_MAX_BYTES for a streamed door); null when it declares none or there is no such door.
   */
  channelInboundMaxBytes(name: string): number | null;
  /**
   * How the door reads a channel's requests: the body unread, as a stream (the plugin's
   * `inboundStream`), and whether they count against the public doors' rate limit.
   */
  channelInboundDoor(name: string): { stream: boolean; rateLimited: boolean };
  /** The outbox's dead letters, newest first (admin only; `first` 1-1000, default 50). */
  outboxDeadLetters(principal: Principal, first?: number | null): Promise<DeadLetterList>;
  /** A channel's inbound door (after the HTTP size cap): API.md §9's order. */
  channelInbound(name: string, request: InboundRequest): Promise<ChannelInboundResult>;
  /** Where a channel's short link (`/l/{token}`) leads; null for any token naming nothing live. */
  followLink(token: string): Promise<string | null>;
  /** The public callback door (after the HTTP size cap): records the payload as the answer. */
  callback(req: CallbackRequest): Promise<CallbackOutcome>;
  /** Which page a GET on a callback URL shows; never changes anything. */
  /** `choice`: a choice link's `?choice=<n>` (API.md §9.1); an index the question lacks shows its usual page. */
  callbackPage(ticket: string, choice?: string): Promise<CallbackPage>;
  /** The signed decision receipt of a resolved question (API.md §16); null while pending or unsigned. */
  receipt(question: QuestionRecord): Promise<string | null>;
  /** Policy rules (API.md §20): listed for admins and auditors, put and deleted by admins. */
  policyRules: Pick<PolicyAdmin, 'list' | 'put' | 'delete' | 'refresh'>;
  /** Grants given while approving (API.md §20): the caller's own, and revoking one. */
  grants: GrantAdmin;
  /** ALLOW rules the history supports, and adopting one in SHADOW (API.md §20). */
  policySuggestions: PolicySuggestions;
  /** How people's decisions compared with a SHADOW rule (admins and auditors). */
  policyShadowReport(p: Principal, ruleId: unknown): Promise<ShadowReport>;
  /** The SLA view (API.md §24): operators (their visible questions), admins and auditors. */
  decisionStats(p: Principal, args: DecisionStatsArgs): Promise<DecisionStatsRow[]>;
  /** The name a principal is shown by, where one is known (API.md §19); null otherwise. */
  nameOf(principalId: string): Promise<string | null>;
  /** The audit log (API.md §17), for admins and auditors: pages and exports. */
  readonly audit: AuditReader;
  /** Delegations, quiet hours and digests, claims (API.md §22). */
  readonly presence: Presence;
  /** Channel recipients linked to the person, whose quiet hours then hold them (API.md §22). */
  readonly linking: ChannelLinking;
  /**
   * A compact JWS over a small JSON object with the receipt key (the audit export's head);
   * null when the server signs nothing.
   */
  signObject(payload: Record<string, unknown>): Promise<string | null>;
  /**
   * The question's escalation ladder (API.md §18) with what each fired step recorded; empty
   * without a ladder (then nothing is read).
   */
  escalations(question: QuestionRecord): Promise<EscalationView[]>;
}

/** One step of a question's ladder as the surfaces show it. */
export interface EscalationView extends EscalationStep {
  /** When the step fired (epoch ms); null while it has not. */
  firedAt: number | null;
  /** `DELIVERED`, or `FAILED: <why>`; null while it has not fired. */
  outcome: string | null;
  /** An `oncall:<group>` question (API.md §22): who was on duty when it fired. */
  routedTo?: string | null;
}
