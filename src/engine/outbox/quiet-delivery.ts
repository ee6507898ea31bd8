// The `quiet:<channel>` follow-up (API.md §22): a channel delivery held by its recipient's person's
// quiet hours or digest (people/quiet-channels.ts enqueued it at ask time), sent when the hold
// ends. The outbox lease gives each attempt to one worker of all instances, so it goes out once.
//
//   attempt 0   the link and the preferences are read again: still held → retried at the
//               release (`releaseAt`: the end of quiet hours, or the digest's hour); else sent.
//   later       the hold elapsed (or a send failed): sent, unless the person is inside quiet
//               hours again (`quietEnd`, e.g. a hold that outlived a whole day): held to their end.
//
// Sent = the question as its own channel message with a fresh callback URL, so it can be answered
// where it arrives, its delivery recorded as an ask-time delivery is. Each held question goes out
// as itself: a digest groups held questions in time (they are released together), not into one
// message, for the channel plugin contract has no digest message.
//
// A failed send is retried with the outbox's backoff; after the outbox's attempts the item is
// dropped (a dead letter) and the question keeps waiting in the inbox. An ask-time failure
// cancels instead: the asker is there to be told (CHANNEL_DELIVERY_FAILED) and may ask another
// way; at release nobody is, the question has been waiting for hours, and its person sees it
// in the inbox, so cancelling would only lose a question that can still be answered.
import { quietEnd, releaseAt } from '../../domain/notification-prefs.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { QuestionStore } from '../../store/types.ts';
import { deliveryCause } from '../asking.ts';
import { createRedelivery } from '../deliveries/redeliver.ts';
import type { Logger } from '../logger.ts';
import { createChannelLinks } from '../people/channel-links.ts';
import { createNotificationPrefs } from '../people/notification-prefs.ts';
import { heldMarks } from '../people/quiet-channels.ts';
import type { ChannelPort, EngineObserver } from '../ports.ts';
import { defaultBackoffMs, type FollowUpHandler, type FollowUpResult } from './worker-options.ts';

export interface QuietDeliveryDeps {
  store: QuestionStore;
  channels: ChannelPort;
  logger: Logger;
  observer?: EngineObserver;
  /** The public base URL callback URLs are built on; null: none can be handed out. */
  publicBaseUrl: string | null;
  clock?: () => number;
  /** Backoff after a failed send, by attempt (the outbox worker's own by default). */
  backoffMs?: (attempt: number) => number;
}

export function createQuietDelivery(deps: QuietDeliveryDeps): FollowUpHandler {
  const clock = deps.clock ?? Date.now;
  const backoff = deps.backoffMs ?? defaultBackoffMs;
  const { store, channels } = deps;
  const again = createRedelivery({ ...deps, clock });
  const marks = heldMarks(store.people);
  // Read on every attempt: a link or preference changed while it was held counts.
  const links = createChannelLinks(store.people, clock);
  const prefs = createNotificationPrefs(store.people, clock);

  /** When the send is held to, or null to send now. */
  async function heldUntil(q: QuestionRecord, channel: string, attempt: number): Promise<number | null> {
    if (q.recipient === null) return null;
    const person = await links.personOf(channel, q.recipient);
    if (person === null) return null;
    const theirs = await prefs.get(person);
    const now = clock();
    return attempt === 0 ? releaseAt(theirs, now) : quietEnd(theirs, now);
  }

  /** The question as its own channel message; its delivery recorded. */
  async function send(q: QuestionRecord, channel: string, attempt: number): Promise<FollowUpResult> {
    if (!deps.publicBaseUrl) return { kind: 'drop', reason: 'INTERACTIONS_PUBLIC_BASE_URL is not set' };
    try {
      // Resolved since it was leased: nothing to send.
      if ((await again.deliverTo(q, channel)) === 'closed') return { kind: 'done' };
    } catch (err) {
      deps.observer?.channelDelivery(channel, 'failed');
      // Never the recipient: it is personal (a phone number, an address).
      deps.logger.warn(
        { channel, questionId: q.id, attempt, cause: deliveryCause(err) },
        'held channel delivery failed: retried; the question waits in the inbox',
      );
      return {
        kind: 'retry',
        at: clock() + backoff(attempt),
        reason: `${channel}: ${deliveryCause(err)}`,
      };
    }
    deps.observer?.channelDelivery(channel, 'delivered');
    await marks.clear(q.id);
    return { kind: 'done' };
  }

  return async (item, question, channel) => {
    if (question?.status !== 'PENDING') return { kind: 'done' };
    if (channel !== question.channel) return { kind: 'drop', reason: 'not the question’s channel' };
    if (!channels.names().has(channel)) {
      return { kind: 'drop', reason: 'the channel is not configured' };
    }
    const at = await heldUntil(question, channel, item.attempt);
    // Waiting on the person, not on the channel: the channel's health is not touched.
    if (at !== null) return { kind: 'retry', at, reason: 'quiet hours', targetOk: true };
    return send(question, channel, item.attempt);
  };
}
