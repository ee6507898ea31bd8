// The `channel:<name>` follow-up (performed by the outbox worker): after any resolution, the
// channel edits the message it sent, e.g. "Answered by …". Best effort: a throw is retried with
// backoff and given up after MAX_CHANNEL_FOLLOW_UP_ATTEMPTS; it never changes the outcome.
import type { DeliveryRecord } from '../../channels/types.ts';
import type { QuestionStore } from '../../store/types.ts';
import { defaultBackoffMs, type FollowUpHandler } from '../outbox/worker.ts';
import type { NameOf } from '../people/names.ts';
import { heldMarks } from '../people/quiet-channels.ts';
import type { ChannelPort } from '../ports.ts';
import { atPlace, channelQuestionOf } from './question.ts';

/** Attempts (first one included) before an edit is given up. */
export const MAX_CHANNEL_FOLLOW_UP_ATTEMPTS = 10;

export interface ChannelFollowUpDeps {
  store: QuestionStore;
  channels: ChannelPort;
  clock?: () => number;
  backoffMs?: (attempt: number) => number;
  /** The answerer's display name, for the edited message (API.md §19). */
  nameOf?: NameOf;
}

export function createChannelFollowUp(deps: ChannelFollowUpDeps): FollowUpHandler {
  const clock = deps.clock ?? Date.now;
  const backoff = deps.backoffMs ?? defaultBackoffMs;
  const held = heldMarks(deps.store.people);
  return async (item, question, name) => {
    if (!question) return { kind: 'drop', reason: 'the question is gone' };
    const instance = deps.channels.instance?.(name);
    if (!instance) return { kind: 'drop', reason: 'the channel is not configured' };
    if (!instance.onResolved) return { kind: 'done' };
    const last = item.attempt + 1 >= MAX_CHANNEL_FOLLOW_UP_ATTEMPTS;
    const own = name === question.channel;
    const recorded = await deps.store.deliveries.get(question.id, name);
    // A REROUTE place the ladder never reached (the answer came first): nothing to edit there.
    if (recorded === undefined && !own) return { kind: 'done' };
    // Held by quiet hours (API.md §22) and resolved before it went out: never sent, nothing to edit.
    if (recorded === undefined && (await held.isHeld(question.id, clock()))) return { kind: 'done' };
    if (recorded === undefined) {
      // Delivery may still be in flight (the question was resolved while it was being sent).
      return last
        ? { kind: 'drop', reason: 'no delivery record was recorded' }
        : {
            kind: 'retry',
            at: clock() + backoff(item.attempt),
            reason: 'no delivery record yet',
            // Our own delivery is still under way: the channel is not failing.
            targetOk: true,
          };
    }
    // Delivery failed: no message was sent, so there is nothing to edit.
    if (recorded.delivery === null) return { kind: 'done' };
    try {
      const answererName = question.answeredBy && deps.nameOf ? await deps.nameOf(question.answeredBy) : null;
      await instance.onResolved(
        channelQuestionOf(atPlace(question, name), answererName),
        recorded.delivery as DeliveryRecord,
      );
      return { kind: 'done' };
    } catch (err) {
      const reason = err instanceof Error ? err.message : 'failed';
      return last ? { kind: 'drop', reason } : { kind: 'retry', at: clock() + backoff(item.attempt), reason };
    }
  };
}
