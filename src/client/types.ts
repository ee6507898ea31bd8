// What the SDK takes and gives: questions to ask, typed by format so that `askUser` returns the
// right answer type, and the shapes of what the server sends back (from the generated types).
import type { z } from 'zod';
import type {
  AnswerFormat,
  ClientAskResultFieldsFragment,
  EscalationAction,
  EscalationStepInput,
  InboxEventType,
  MediaItemInput,
  MediaKind,
  QuestionFieldsFragment,
  QuestionFilter,
  QuestionStatus,
  QuorumInput,
  VerifierInput,
} from './generated/graphql.ts';

export type {
  AnswerFormat,
  EscalationAction,
  EscalationStepInput,
  InboxEventType,
  MediaItemInput,
  MediaKind,
  QuestionFilter,
  QuestionStatus,
  QuorumInput,
  VerifierInput,
};

/** A question as the server shows it (API.md §4 `Question`). */
export type Question = QuestionFieldsFragment;

/** The state of a question when a wait ended (API.md §4 `AskResult`). */
export type AskResult = ClientAskResultFieldsFragment;

/** A JSON Schema, as a plain object. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * The schema of a FORM answer or an EXTERNAL payload: a zod 4 schema (sent as JSON Schema, and
 * the answer is parsed by it and typed by it) or a JSON Schema object (the answer is an object).
 */
export type AnswerSchema = z.ZodType | JsonSchema;

/** What zod infers for a zod schema; a JSON Schema object gives a plain object. */
export type SchemaOutput<S> = S extends z.ZodType ? z.output<S> : Record<string, unknown>;

/** Fields every question may have. */
export interface AskBase {
  /** What to ask: non-blank, at most 8192 characters. */
  text: string;
  /** Up to 8 images and links shown with the question. */
  media?: readonly MediaItemInput[] | undefined;
  groupId?: string | undefined;
  /** The principal id the question is for. */
  audience?: string | undefined;
  /** A registered channel that also delivers the question. */
  channel?: string | undefined;
  /** Who the channel delivers to. */
  recipient?: string | undefined;
  /** How long the question stays answerable (1 to 31536000 s); default from the server. */
  timeoutSeconds?: number | undefined;
  /** The answer reaches only the asker, once, and is never stored. */
  sensitive?: boolean | undefined;
  /**
   * Same asker and same key: the same question, never a second one. Generated when omitted, and
   * reused by the SDK's own retries; pass your own to make a retry of the whole call (say, after
   * your process restarted) attach to the question it asked before.
   */
  idempotencyKey?: string | undefined;
  /** Your own JSON object (e.g. a run id), at most 4096 bytes as JSON: returned on the question and in webhooks. */
  metadata?: Readonly<Record<string, unknown>> | undefined;
  /** A resume-webhook endpoint named in the server's manifest, called (signed) when the question resolves. */
  notify?: string | undefined;
  /**
   * Reminders and escalation while nobody answers (API.md §18): at most 10 steps, each at least
   * 10 s after the ask, strictly increasing, before the timeout. Not with `escalationPolicy`.
   */
  escalation?: readonly EscalationStepInput[] | undefined;
  /** A ladder named in the server's manifest (`escalationPolicies`). Not with `escalation`. */
  escalationPolicy?: string | undefined;
}

export interface TextQuestion extends AskBase {
  format?: 'TEXT' | undefined;
}

export interface ConfirmQuestion extends AskBase {
  format: 'CONFIRM';
}

export interface SelectQuestion extends AskBase {
  format: 'SELECT';
  /** 1 to 100 distinct options; `as const` (or a literal) types the answer as their union. */
  options: readonly string[];
}

export interface FormQuestion extends AskBase {
  format: 'FORM';
  /** A zod object schema or a JSON Schema with `"type": "object"` at its root. */
  schema: AnswerSchema;
}

export interface ExternalQuestion extends AskBase {
  format: 'EXTERNAL';
  /** The URL the person visits: a template holding `{callback_url}`, or the final URL with `preparedId`. */
  link?: string | undefined;
  /** A registered webhook verifier that must accept every callback. */
  verifier?: VerifierInput | undefined;
  /** Validates (and, for zod, types) the callback payload. */
  schema?: AnswerSchema | undefined;
}

export interface ConfirmQuorumQuestion extends ConfirmQuestion {
  /** Several approvers: each answer is a vote (API.md §15). */
  quorum?: QuorumInput | undefined;
}

/** What the agent proposes to do (API.md §15 `ActionInput`). */
export interface ActionProposal<A = Readonly<Record<string, unknown>>> {
  /** 1 to 100 characters of A-Z a-z 0-9 _ . : - (e.g. "payments.refund"). */
  name: string;
  /** One line for people, at most 300 characters. */
  summary?: string | undefined;
  /** The proposed arguments (at most 64 KiB as JSON). */
  arguments: A;
  /** May an approver change the arguments? Needs `argumentsSchema`. */
  editable?: boolean | undefined;
  /** `HIGH`: approved only in the inbox with the approver's passkey (API.md §23). */
  assurance?: 'STANDARD' | 'HIGH' | undefined;
  /** Principals besides the asker that may consume the approval (API.md §23). */
  executors?: string[] | undefined;
  /** How long the approval may be consumed, counted from the decision (seconds). */
  validSeconds?: number | undefined;
}

/** What `zod` gives for the arguments schema, or a plain object for a JSON Schema (or none). */
export type ArgumentsOf<S> = S extends z.ZodType ? z.output<S> : Record<string, unknown>;

export interface ApprovalQuestion<S extends AnswerSchema | undefined = AnswerSchema | undefined>
  extends AskBase {
  format: 'APPROVAL';
  action: ActionProposal<S extends z.ZodType ? z.input<S> : Readonly<Record<string, unknown>>>;
  /** A zod object schema or a JSON Schema of the arguments (required when editable). */
  argumentsSchema?: S;
  quorum?: QuorumInput | undefined;
}

/** The answer of an APPROVAL question as the server records it. */
export interface ApprovalAnswer {
  decision: 'APPROVED' | 'REJECTED';
  /** Present with APPROVED: the arguments as approved (after any edit). */
  arguments?: Record<string, unknown>;
  note?: string;
}

/** What `askApproval` resolves with: the decision, and with APPROVED the arguments to run. */
export type Approval<T> =
  | { decision: 'APPROVED'; arguments: T; note: string | null; edited: boolean; question: Question }
  | { decision: 'REJECTED'; arguments: null; note: string | null; edited: false; question: Question };

/** `askApproval`'s input: the format is implied. */
export type ApprovalRequest<S extends AnswerSchema | undefined> = Omit<ApprovalQuestion<S>, 'format'>;

export type AskInput =
  | TextQuestion
  | ConfirmQuorumQuestion
  | SelectQuestion
  | FormQuestion
  | ExternalQuestion
  | ApprovalQuestion;

/**
 * The answer type of a question: CONFIRM → boolean, SELECT → the union of its options, FORM →
 * its schema's type, EXTERNAL → its payload schema's type (an object without one), TEXT →
 * string. A format that is not a literal type gives `unknown`.
 */
export type AnswerOf<I> = I extends { format: 'CONFIRM' }
  ? boolean
  : I extends { format: 'APPROVAL' }
    ? ApprovalAnswer
    : I extends { format: 'SELECT'; options: infer O extends readonly string[] }
      ? O[number]
      : I extends { format: 'FORM'; schema: infer S }
        ? SchemaOutput<S>
        : I extends { format: 'EXTERNAL' }
          ? I extends { schema: infer S extends AnswerSchema }
            ? SchemaOutput<S>
            : Record<string, unknown>
          : I extends { format: 'TEXT' | undefined }
            ? string
            : // No format at all is TEXT, the default. (Not `{ format?: 'TEXT' }`: an object type with
              // only optional properties matches nothing that lacks them all.)
              I extends { format: unknown }
              ? unknown
              : string;

export interface WaitOptions {
  /** Stops waiting (the question stays pending); the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /**
   * `waitForAnswer` and `waitFor`: called once with the question's state as first read, before
   * any hold. A caller that bounds its own wait (e.g. by aborting `signal` after a few
   * seconds) starts counting here, so even a zero wait reads the question once.
   */
  onAttached?: ((first: AskResult) => void) | undefined;
}

export interface AskUserOptions extends WaitOptions {
  /**
   * Called once, as soon as the question is recorded (before any answer): the question, and for
   * EXTERNAL and channel questions the callback URL. The server shows that URL once; if the
   * response that carried it was lost and the SDK's retry attached to the same question, it
   * is null (a prepared question always has it: it comes from the reservation).
   */
  onAsked?: ((question: Question, callbackUrl: string | null) => void) | undefined;
  /** The id from `prepareExternal`: the question takes that id and its callback URL. */
  preparedId?: string | undefined;
}

/** What `ask` returns at once: the recorded question, and its callback URL when it has one. */
export interface AskedQuestion {
  question: Question;
  /** For EXTERNAL and channel questions; shown once (null on an idempotent repeat). */
  callbackUrl: string | null;
}

export interface PreparedExternal {
  id: string;
  callbackUrl: string;
  expiresAt: string;
}

export interface QuestionPage {
  questions: Question[];
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export interface QuestionsPageOptions {
  filter?: QuestionFilter | undefined;
  /** Page size, 1 to 200 (default 50). */
  first?: number | undefined;
  /** The `endCursor` of the previous page. */
  after?: string | undefined;
}

export interface QuestionsOptions {
  filter?: QuestionFilter | undefined;
  /** Questions fetched per request, 1 to 200 (default 100). */
  pageSize?: number | undefined;
}

export interface Viewer {
  id: string;
  roles: string[];
  restricted: boolean;
}

/** A channel configured on the server (`channelDetails`). */
export type { ChannelDetail } from '../domain/channel-detail.ts';

/** A follow-up the server's outbox gave up (`outboxDeadLetters`, admin only). */
export interface OutboxDeadLetter {
  /** The outbox item id, `<questionId>:<kind>:<target>`. */
  id: string;
  questionId: string;
  /** `webhook` (a resume webhook) or `channel` (a message edit). */
  kind: string;
  /** The webhook endpoint or channel name. */
  target: string;
  /** Attempts made, the last one included. */
  attempts: number;
  lastError: string;
  /** RFC 3339. */
  enqueuedAt: string;
  /** RFC 3339. */
  droppedAt: string;
}

export interface OutboxDeadLetters {
  /** Dead letters the server keeps now. */
  totalCount: number;
  /** The newest first. */
  items: OutboxDeadLetter[];
}

/** One change to the pending questions the caller may see. */
export interface InboxEvent {
  /** SNAPSHOT (the pending questions, on every connect and reconnect) or the change. */
  type: InboxEventType;
  /**
   * SNAPSHOT: the pending questions the caller may see, oldest first (the first part of them
   * when `more`); otherwise the one that changed or the next one of the backlog.
   */
  questions: Question[];
  /**
   * True while more of the backlog follows: a backlog past about 4 MiB arrives as the SNAPSHOT
   * and then one ASKED per further question, and it is complete at the first event with
   * `more: false`. Live changes always have `more: false`.
   */
  more: boolean;
}

/** The live inbox feed: iterate it (one consumer), stop it with `close()` or the signal. */
export interface InboxSubscription extends AsyncIterable<InboxEvent> {
  close(): void;
}

export interface SubscribeInboxOptions {
  signal?: AbortSignal | undefined;
  /** Called when the feed dropped and is about to reconnect (a fresh SNAPSHOT follows). */
  onReconnect?: ((error: unknown) => void) | undefined;
}

/** `askExternal`'s wrapped tool: its own arguments plus the callback URL, returning the URL to visit. */
export type ExternalTool<A extends { callbackUrl: string }> = (args: A) => string | Promise<string>;

export interface AskExternalOptions<S extends AnswerSchema | undefined = undefined> {
  /** A registered webhook verifier bound to every callback (the link is then hidden from the inbox). */
  verifier?: VerifierInput | undefined;
  /** Validates (and, for zod, types) the callback payload. */
  schema?: S;
}

/** Per call: what to ask, and how to wait. */
export interface ExternalAskOptions
  extends Omit<AskBase, 'channel' | 'recipient'>,
    Omit<AskUserOptions, 'preparedId'> {}

/** The payload type `askExternal` resolves with. */
export type PayloadOf<S> = S extends AnswerSchema ? SchemaOutput<S> : Record<string, unknown>;

/** `askExternal`'s result: the tool's own arguments (no `callbackUrl`), then the question. */
export type ExternalAsker<A extends { callbackUrl: string }, S> = (
  args: Omit<A, 'callbackUrl'>,
  ask: ExternalAskOptions,
) => Promise<PayloadOf<S>>;
