// What the engine needs from the plugins (webhook verifiers, channels). The composition root
// adapts the registries to these shapes, so the engine depends on no plugin code.
import type { ChannelInstance } from '../channels/types.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { HeaderBag } from '../domain/values.ts';
import type { StoreEvent } from '../store/types.ts';

export type { HeaderBag };

export type VerifyOutcome = 'ok' | 'failed' | 'unavailable';

export interface VerifierPort {
  names(): ReadonlySet<string>;
  /** Ask time: a bad config is BAD_USER_INPUT (it names environment variables, never secrets). */
  checkConfig(name: string, config: Record<string, unknown>): void;
  /** Whether the verifier signs the body (an empty body is then refused, never verified). */
  signsBody(name: string): boolean;
  verify(
    name: string,
    config: Record<string, unknown>,
    req: { rawBody: Buffer; headers: HeaderBag; now: number },
  ): VerifyOutcome;
}

export interface ChannelPort {
  names(): ReadonlySet<string>;
  /**
   * Push the question's text (never its media) to the person; throws when it cannot. Resolves
   * with the plugin's DeliveryRecord, stored with the question; the engine treats it as
   * untrusted (anything but small JSON is kept as its `ref` and `recipient` only).
   */
  deliver(question: QuestionRecord, callbackUrl: string): Promise<unknown>;
  /**
   * The instance behind a name: its recipient rules (ask time), its inbound door and its
   * message edit after resolution. A port without it has none of those.
   */
  instance?(name: string): ChannelInstance | undefined;
  /** The plugin an instance was made from (`slack`, `./plugins/pager.js`), for operators. */
  pluginOf?(name: string): string | undefined;
}

export type { ChannelDetail } from '../domain/channel-detail.ts';

/** Signs decision receipts (API.md §16); the composition root adapts the key set to it. */
export interface ReceiptPort {
  /** The receipt of a resolved question; null while it is pending. */
  sign(question: QuestionRecord): Promise<string | null>;
  /** A compact JWS over any small JSON object (the audit export's signed head). */
  signObject?(payload: Record<string, unknown>): Promise<string>;
  /** The claims of a receipt this server signed; null when its signature does not verify. */
  verify?(jws: string): Promise<Record<string, unknown> | null>;
}

/** What the engine reports as it works (the metrics). Calls must be cheap and never throw. */
export interface EngineObserver {
  /** Every store announcement this process receives (asks and resolutions, from every instance). */
  announced(e: StoreEvent): void;
  /** A hand-over of a question to its channel. */
  channelDelivery(channel: string, result: 'delivered' | 'failed'): void;
  /** One attempt of a resume webhook (API.md §12), by the endpoint's manifest name. */
  webhookDelivery(endpoint: string, result: 'delivered' | 'failed' | 'gone' | 'gave_up'): void;
  /** A follow-up given up (kept as a dead letter), by its kind (`webhook`, `channel`). */
  outboxDeadLetter(kind: string): void;
  /** An ask refused because the outbox is at INTERACTIONS_OUTBOX_MAX. */
  outboxFull(): void;
  /** A policy rule applied to an ask (API.md §20): its effect and mode, never its id. */
  policyDecision?(effect: string, mode: string): void;
  /** A fired escalation step (API.md §18), by its action and whether it was delivered. */
  escalationStep?(action: 'remind' | 'reroute', outcome: 'delivered' | 'failed'): void;
}

export const NO_OBSERVER: EngineObserver = {
  announced() {},
  channelDelivery() {},
  webhookDelivery() {},
  outboxDeadLetter() {},
  outboxFull() {},
};

export const NO_VERIFIERS: VerifierPort = {
  names: () => new Set(),
  checkConfig() {},
  signsBody: () => true,
  verify: () => 'unavailable',
};

export const NO_CHANNELS: ChannelPort = {
  names: () => new Set(),
  async deliver() {
    throw new Error('no channels are registered');
  },
};
