// The channel-plugin contract (API.md §9 "Authoring a plugin"), exported as
// `tai-interactions/channel`. Types only: a plugin depends on nothing of ours at run time.
//
// A plugin is an adapter at the edge. It turns a question into a provider message (`deliver`),
// a provider event into a request to the engine (`inbound`), and a resolution into a message
// edit (`onResolved`). It never touches the store: the engine finds questions, validates and
// claims answers, records deliveries, and calls the plugin back with the outcome.
import type { Readable } from 'node:stream';
import type { z } from 'zod';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

export type AnswerFormat = 'TEXT' | 'CONFIRM' | 'SELECT' | 'FORM' | 'EXTERNAL' | 'APPROVAL';

/** APPROVAL: what the agent proposes (API.md §15). */
export interface ChannelAction {
  name: string;
  summary: string | null;
  arguments: Record<string, unknown>;
  argumentsSchema: Record<string, unknown> | null;
  editable: boolean;
  digest: string;
}
export type QuestionStatus = 'PENDING' | 'ANSWERED' | 'TIMED_OUT' | 'CANCELLED';

/**
 * What a plugin sees of a question. Media is deliberately absent: channels never forward it.
 * For a sensitive question `answer` is always null.
 */
export interface ChannelQuestion {
  id: string;
  text: string;
  format: AnswerFormat;
  /** SELECT: the options, in order (the plugin may refer to one by its index). */
  options: string[] | null;
  /** FORM: the JSON Schema of the answer; EXTERNAL: optional. */
  schema: Record<string, unknown> | null;
  /** EXTERNAL: the URL the person visits. */
  link: string | null;
  /** APPROVAL: the proposed action; absent or null for other formats. */
  action?: ChannelAction | null;
  /** APPROVAL: whether "Approve and allow for 1 hour" may be offered (API.md §20); absent: no. */
  grantable?: boolean;
  /** The recipient after the channel's `defaultRecipient` was applied. */
  recipient: string | null;
  sensitive: boolean;
  status: QuestionStatus;
  answer: unknown;
  /** `<channel>:<provider user id>` for inbound answers, `callback`, or the inbox user. */
  answeredBy: string | null;
  /**
   * The answerer's name where one is known (a signed-in person's, a channel user's the channel
   * reported, API.md §19); `answeredBy` stays the stable id.
   */
  answeredByName?: string | null;
  cancelReason: string | null;
  createdAt: number;
  timeoutAt: number;
}

/**
 * What `deliver` returns; the engine stores it with the question and hands it back to
 * `onResolved` and `respond`. JSON only, small (a message id, a channel, a timestamp).
 * `ref` and `recipient` are indexed by the engine per channel instance, which is how an
 * inbound event can name its question by a short reference or "the latest for this sender".
 */
export interface DeliveryRecord {
  /** A short reference unique within the channel instance (e.g. a Telegram message id, "K7"). */
  ref?: string;
  /** Who the message went to, as the provider will name the sender of a reply. */
  recipient?: string;
  [key: string]: JsonValue | undefined;
}

export interface ChannelLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ChannelContext {
  /** The instance name from the manifest (`ops-slack`). */
  name: string;
  /** The value of an environment variable named in the config; undefined when unset or empty. */
  secret(envName: string): string | undefined;
  logger: ChannelLogger;
  fetch: typeof fetch;
  /** The server's public base URL, without a trailing slash. */
  publicBaseUrl: string;
  /** This instance's inbound door: `{publicBaseUrl}/api/interactions/channels/{name}`. */
  inboundUrl: string;
}

/** One request at the channel's inbound door, before anything is parsed. */
export interface InboundRequest {
  /** The body bytes exactly as received (signatures are over these); empty when `body` is given. */
  rawBody: Buffer;
  /**
   * For an instance with `inboundStream`: the body, not yet read, as the client sends it. The
   * plugin reads it bounded (at most `inboundMaxBytes`), never holds it whole, and may refuse
   * before reading a byte (credentials in headers). Absent: the body is `rawBody`.
   */
  body?: Readable;
  /**
   * Takes `key` once for `ttlMs` across every instance of the server (the store): true the first
   * time, false for any repeat within that time. For providers that sign no body (Mailgun signs a
   * timestamp and a token), so that a captured signature never carries a second message.
   */
  once?(key: string, ttlMs: number): Promise<boolean>;
  /** Header names lower-cased. */
  headers: Record<string, string | string[] | undefined>;
  /** The public URL the provider posted to (`inboundUrl`, plus any query string). */
  url: string;
  /** Epoch milliseconds. */
  now: number;
}

/** What the door answers the provider. */
export interface ChannelResponse {
  status: number;
  /** e.g. `content-type: text/xml` for TwiML. */
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. Absent: an empty body. */
  body?: string | JsonValue;
}

/** How an inbound event names its question; the engine resolves it within this channel only. */
export type QuestionRef =
  | { id: string }
  /** The `ref` of a delivery record this instance returned. */
  | { ref: string }
  /** The latest PENDING question this instance delivered to that `recipient` (delivery.recipient). */
  | { latestFor: string };

/**
 * What the engine may tell `answer` besides the question (each field optional: an engine that
 * does not know it leaves it out, and the plugin then assumes the simple case).
 */
export interface AnswerHints {
  /**
   * For a `{latestFor}` reference: how many PENDING questions of this channel instance were
   * delivered to that recipient, the found one included. A plugin can then refuse a free-text
   * reply that could belong to another of them (Twilio TEXT) and ask for the reference.
   */
  pendingForRecipient?: number;
}

/** What the engine did with an `answer` event; `respond` renders it for the provider. */
export type ClaimOutcome =
  | { kind: 'recorded'; question: ChannelQuestion; delivery: DeliveryRecord | null }
  /** The question was already answered by this same sender with this same answer (a provider retry). */
  | { kind: 'duplicate'; question: ChannelQuestion; delivery: DeliveryRecord | null }
  /** Closed before this event: answered by someone else, timed out or cancelled. */
  | { kind: 'closed'; question: ChannelQuestion; delivery: DeliveryRecord | null }
  /** The answer failed validation (API.md §5.3); nothing changed. `message` is safe to show. */
  | { kind: 'invalid'; message: string; question: ChannelQuestion; delivery: DeliveryRecord | null }
  /** No question of this channel matches the reference. */
  | { kind: 'not-found' };

/** What the engine found for a `show` event (nothing is claimed). */
export type LookupOutcome =
  | { kind: 'pending'; question: ChannelQuestion; delivery: DeliveryRecord | null }
  | { kind: 'closed'; question: ChannelQuestion; delivery: DeliveryRecord | null }
  | { kind: 'not-found' };

/**
 * What an inbound event means. The plugin verifies the provider's signature on the raw bytes
 * before anything else and returns `reject` when it fails (401) or cannot run (500: a missing
 * secret fails closed). Only then does it parse the event.
 */
export type InboundEvent =
  | {
      kind: 'answer';
      question: QuestionRef;
      /**
       * The answer for the question the engine found (e.g. an option index becomes the option).
       * Returning undefined means "this reply does not answer that question": outcome `invalid`.
       */
      answer(question: ChannelQuestion, hints?: AnswerHints): unknown;
      /**
       * Optional, for a button whose answer depends on nothing but the question's format: what
       * `answer` returns for every question of `format` (a CONFIRM button: `true` or `false`; an
       * APPROVAL's reject button: `{decision: "REJECTED"}`). With it, and a question named by
       * `{id}`, the engine may find and claim the question in one store step instead of a read
       * and then the claim; every rule is checked as before, and a question of another format
       * (or one this shortcut does not cover) still goes through `answer`.
       */
      answerFor?: { format: AnswerFormat; value: JsonValue };
      /** The provider's user id; the engine records `answeredBy` as `<channel>:<by>`. */
      by: string;
      /** The sender's display name when the provider says it (kept as the name of `<channel>:<by>`). */
      byName?: string;
      /**
       * Where the event came from, for a provider whose events may name any question but belong
       * to one place (Teams: the Bot Framework channel and the conversation of the activity).
       * Each key names a field of the question's DeliveryRecord at this channel, which must hold
       * the same value: an event from anywhere else answers nothing (no one-step claim either), is
       * answered `not-found`, and the audit log records CALLBACK_REFUSED with `{channel, reason}`,
       * the reason being the first key that differs (or `delivery` when nothing was delivered here).
       */
      origin?: Readonly<Record<string, string>>;
      respond(outcome: ClaimOutcome): ChannelResponse | Promise<ChannelResponse>;
      /**
       * For providers whose signatures carry no timestamp (Twilio): the message's unique id
       * (`MessageSid`, at most 200 characters). The engine acts on an id once within the
       * retention period, across instances: a repeat, whether a provider retry or a captured
       * request sent again, claims nothing and is answered `repeat`. And the question the event
       * names must have been delivered before the message was first seen.
       */
      dedupe?: { id: string; repeat: ChannelResponse };
    }
  | {
      /** The person asked to see more (e.g. open a Slack modal); the engine looks up, claims nothing. */
      kind: 'show';
      question: QuestionRef;
      respond(outcome: LookupOutcome): ChannelResponse | Promise<ChannelResponse>;
    }
  /** Verified, but not ours to act on (a URL check, an unrelated update); answered with `response`. */
  | { kind: 'ignore'; response: ChannelResponse }
  /**
   * Refused before or while parsing; nothing is looked up. `reason` is for logs, never a secret.
   * 413: the body is within the door's byte cap but holds more than the plugin will parse.
   */
  | { kind: 'reject'; status: 400 | 401 | 403 | 413 | 500; reason: string; response?: ChannelResponse };

export interface ChannelInstance {
  /**
   * Where a question without a `recipient` goes. The engine stores it as the question's recipient
   * at ask time; when a channel needs a recipient and neither exists, the ask is BAD_USER_INPUT.
   */
  defaultRecipient?: string;
  /** Whether this channel must be told a recipient (Slack, Telegram, Twilio: yes; webhook: no). */
  needsRecipient?: boolean;
  /** Push the question's text (never its media). Throws when the provider refuses or fails. */
  deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord>;
  /** Ask time: a message when this channel cannot address `recipient`, else null. */
  checkRecipient?(recipient: string): string | null;
  /** Absent: the channel takes no inbound requests and its door is the uniform 404. */
  inbound?(request: InboundRequest): Promise<InboundEvent>;
  /**
   * The largest request the provider sends to the inbound door, in bytes (Slack repeats the
   * whole message or modal in every click). The server caps it at 1 MiB (64 MiB with
   * `inboundStream`) and refuses a larger
   * body with 413 before the plugin sees it. Absent: `INTERACTIONS_CALLBACK_MAX_BODY_BYTES`.
   */
  inboundMaxBytes?: number;
  /**
   * The door hands this plugin its body unread (`InboundRequest.body`), for providers whose
   * requests carry whole messages with attachments (e-mail): `inboundMaxBytes` may then be up
   * to 64 MiB, which the plugin reads as a stream, dropping what it does not need.
   */
  inboundStream?: boolean;
  /** The door counts this channel's requests against the public doors' rate limit (per client address). */
  inboundRateLimited?: boolean;
  /**
   * The longest link (an EXTERNAL question's `link`) this channel sends as is. A longer one is
   * handed to `deliver` as a short redirect on the server's own origin (`{publicBaseUrl}/l/…`),
   * which lives as long as the question. Absent: links are never shortened.
   */
  linkMaxChars?: number;
  /**
   * An escalation step's REMIND (API.md §18) while the question is still pending: remind the
   * person where `deliver` reached them (Slack: a reply in the message's thread; Telegram: a
   * reply to the message; Twilio: a short SMS with the reference; webhook: a signed
   * `question.reminded` event). `delivery` is what `deliver` returned; `callbackUrl` is a fresh
   * callback URL for the same question. Throws when the provider refuses: the step records the
   * failure and later steps still fire. Absent: the engine delivers the question again, its
   * text marked as a reminder, and records nothing else.
   */
  remind?(question: ChannelQuestion, delivery: DeliveryRecord, callbackUrl: string): Promise<void>;
  /** After any resolution: edit the message. Best effort; throwing means "retry later". */
  onResolved?(question: ChannelQuestion, delivery: DeliveryRecord | null): Promise<void>;
  /**
   * One-time provider set-up for `tai channels setup <name>` (e.g. Telegram's setWebhook with the
   * secret token and `inboundUrl`). Returns a line to show the operator; throws with a message
   * that names no secret when the provider refuses.
   */
  setup?(): Promise<string>;
  close?(): Promise<void>;
}

export interface ChannelPlugin<Schema extends z.ZodType = z.ZodType> {
  /** The plugin's name as the manifest's `plugin:` names built-ins (`slack`). */
  name: string;
  /** Validates the manifest's `config`; keys ending in `Env` name environment variables. */
  config: Schema;
  create(config: z.output<Schema>, context: ChannelContext): ChannelInstance;
}
