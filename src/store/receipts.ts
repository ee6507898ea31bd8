// Delivery receipts: what a channel's `deliver` returned for a question (e.g. Slack's channel
// and ts), kept with the question for as long as the question lives, so the follow-up that
// edits the message and an inbound event that names the question by a short reference can
// find it. `ref` and `recipient` are indexed per channel instance. Both stores implement it.

/** A receipt as stored: a small JSON object (the engine checks it before saving). */
export type StoredReceipt = Record<string, unknown> & { ref?: string; recipient?: string };

/** Longest receipt, as JSON. */
export const MAX_RECEIPT_BYTES = 4096;
/** Longest `ref` or `recipient` that is indexed. */
export const MAX_RECEIPT_KEY_CHARS = 200;
/** How many questions per (channel, recipient) the "latest for" index keeps, newest first. */
export const RECIPIENT_INDEX_DEPTH = 100;

export interface LatestForRecipient {
  id: string;
  pending: number;
}

export interface ChannelReceipts {
  /**
   * Records the receipt with question `id` in one step, and indexes its `ref` and `recipient`
   * within the question's channel. `null` records that delivery failed (nothing was sent).
   * False when the question is gone or has no channel. `deliveredAt` (epoch ms) is when the
   * channel took the message, so a reply can be matched only to questions sent before it.
   * `place`: the channel a REROUTE step delivered to (API.md §18), when it is not the
   * question's own; its receipt is kept beside the first and indexed within that channel.
   */
  save(id: string, receipt: StoredReceipt | null, deliveredAt?: number, place?: string): Promise<boolean>;
  /**
   * What was recorded; undefined while nothing is (delivery may still be in flight). With
   * `place` (a channel name other than the question's own): what a REROUTE step's delivery
   * there recorded (API.md §18); the question's own channel reads the first receipt.
   */
  get(
    id: string,
    place?: string,
  ): Promise<{ receipt: StoredReceipt | null; deliveredAt: number | null } | undefined>;
  /** The question of `channel` whose receipt has this `ref`, while it lives. */
  byRef(channel: string, ref: string): Promise<string | null>;
  /**
   * The newest PENDING question of `channel` whose receipt went to `recipient`, and how many
   * PENDING questions that recipient has in the index (the found one included). With
   * `deliveredBy`, only questions recorded as delivered at or before that time count.
   */
  latestFor(channel: string, recipient: string, deliveredBy?: number): Promise<LatestForRecipient | null>;
}

/** The indexed keys of a receipt: strings of bounded length, else not indexed. */
export function receiptKeys(receipt: StoredReceipt | null): { ref: string | null; recipient: string | null } {
  const key = (v: unknown): string | null =>
    typeof v === 'string' && v.length > 0 && v.length <= MAX_RECEIPT_KEY_CHARS ? v : null;
  return { ref: key(receipt?.ref), recipient: key(receipt?.recipient) };
}

/** A receipt the engine passes is checked by it; a bad one here is a programming error. */
export function encodeReceipt(receipt: StoredReceipt | null): string {
  const text = JSON.stringify(receipt);
  if (Buffer.byteLength(text) > MAX_RECEIPT_BYTES) {
    throw new RangeError(`a receipt is at most ${MAX_RECEIPT_BYTES} bytes as JSON`);
  }
  return text;
}
