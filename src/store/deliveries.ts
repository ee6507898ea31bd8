// Delivery records: what a channel's `deliver` returned for a question (e.g. Slack's channel
// and ts), kept with the question for as long as the question lives, so the follow-up that
// edits the message and an inbound event that names the question by a short reference can
// find it. `ref` and `recipient` are indexed per channel instance. Both stores implement it.

/** A delivery as stored: a small JSON object (the engine checks it before saving). */
export type StoredDelivery = Record<string, unknown> & { ref?: string; recipient?: string };

/** Longest delivery, as JSON. */
export const MAX_DELIVERY_BYTES = 4096;
/** Longest `ref` or `recipient` that is indexed. */
export const MAX_DELIVERY_KEY_CHARS = 200;
/** How many questions per (channel, recipient) the "latest for" index keeps, newest first. */
export const RECIPIENT_INDEX_DEPTH = 100;

export interface LatestForRecipient {
  id: string;
  pending: number;
}

export interface ChannelDeliveries {
  /**
   * Records the delivery with question `id` in one step, and indexes its `ref` and `recipient`
   * within the question's channel. `null` records that delivery failed (nothing was sent).
   * False when the question is gone or has no channel. `deliveredAt` (epoch ms) is when the
   * channel took the message, so a reply can be matched only to questions sent before it.
   * `place`: the channel a REROUTE step delivered to (API.md §18), when it is not the
   * question's own; its delivery is kept beside the first and indexed within that channel.
   */
  save(id: string, delivery: StoredDelivery | null, deliveredAt?: number, place?: string): Promise<boolean>;
  /**
   * What was recorded; undefined while nothing is (delivery may still be in flight). With
   * `place` (a channel name other than the question's own): what a REROUTE step's delivery
   * there recorded (API.md §18); the question's own channel reads the first delivery.
   */
  get(
    id: string,
    place?: string,
  ): Promise<{ delivery: StoredDelivery | null; deliveredAt: number | null } | undefined>;
  /** The question of `channel` whose delivery has this `ref`, while it lives. */
  byRef(channel: string, ref: string): Promise<string | null>;
  /**
   * The newest PENDING question of `channel` whose delivery went to `recipient`, and how many
   * PENDING questions that recipient has in the index (the found one included). With
   * `deliveredBy`, only questions recorded as delivered at or before that time count.
   */
  latestFor(channel: string, recipient: string, deliveredBy?: number): Promise<LatestForRecipient | null>;
}

/** The indexed keys of a delivery: strings of bounded length, else not indexed. */
export function deliveryKeys(delivery: StoredDelivery | null): {
  ref: string | null;
  recipient: string | null;
} {
  const key = (v: unknown): string | null =>
    typeof v === 'string' && v.length > 0 && v.length <= MAX_DELIVERY_KEY_CHARS ? v : null;
  return { ref: key(delivery?.ref), recipient: key(delivery?.recipient) };
}

/** A delivery the engine passes is checked by it; a bad one here is a programming error. */
export function encodeDelivery(delivery: StoredDelivery | null): string {
  const text = JSON.stringify(delivery);
  if (Buffer.byteLength(text) > MAX_DELIVERY_BYTES) {
    throw new RangeError(`a delivery is at most ${MAX_DELIVERY_BYTES} bytes as JSON`);
  }
  return text;
}
