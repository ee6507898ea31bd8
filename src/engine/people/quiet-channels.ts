// Quiet hours and digests on channels (API.md §22): a question delivered on a channel to a
// recipient linked to a person (channel-links.ts) is held as that person's pushes are. At ask
// time, when the person's preferences hold it, nothing is sent: one `quiet:<channel>` outbox item
// is enqueued instead, and its handler (outbox/quiet-delivery.ts) sends the question when the
// hold ends. The question waits meanwhile: the inbox shows it, its escalation steps still fire.
//
// A small mark in the people table says "held, not sent yet": the resolution follow-up
// (`channel:<name>`, deliveries/follow-up.ts) finds no delivery record for a held question and,
// without the mark, would take the delivery to be still in flight and retry until it gives up.
import { type NotificationPrefs, releaseAt } from '../../domain/notification-prefs.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { Outbox } from '../../store/outbox-port.ts';
import type { PeopleStore } from '../../store/people.ts';
import type { ChannelLinks } from './channel-links.ts';

/** The outbox target kind of a held channel delivery: `quiet:<channel>`. */
export const QUIET_TARGET = 'quiet';
/** A held mark outlives its question's deadline by this much (the resolution follow-up comes soon after). */
const MARK_AFTER_TIMEOUT_MS = 24 * 3600 * 1000;

const markKey = (questionId: string): string => `quietheld:${questionId}`;

export interface HeldMarks {
  /** Marks `q` as held: its own channel has no message yet. */
  mark(q: Pick<QuestionRecord, 'id' | 'timeoutAt'>): Promise<void>;
  /** Whether `questionId` was held and its message has not gone out. */
  isHeld(questionId: string, now: number): Promise<boolean>;
  /** Its message went out. */
  clear(questionId: string): Promise<void>;
}

export function heldMarks(people: PeopleStore): HeldMarks {
  return {
    async mark(q) {
      await people.put(markKey(q.id), '1', q.timeoutAt + MARK_AFTER_TIMEOUT_MS);
    },
    async isHeld(questionId, now) {
      return (await people.get(markKey(questionId), now)) !== null;
    },
    async clear(questionId) {
      await people.delete(markKey(questionId));
    },
  };
}

export interface ChannelHoldOptions {
  links: ChannelLinks;
  prefsOf: (personId: string) => Promise<NotificationPrefs>;
  people: PeopleStore;
  outbox: Pick<Outbox, 'add'>;
  clock: () => number;
  /**
   * Whether a channel addresses people (its plugin `needsRecipient`: Slack, Telegram, Twilio,
   * e-mail, Discord, Teams): only there can a recipient be someone's. A webhook is nobody's.
   */
  addressesPeople: (channel: string) => boolean;
}

/**
 * Whether a new question's channel delivery is held; when it is, its mark is written and its
 * `quiet:<channel>` item enqueued (due now: the handler's first attempt reads the hold again and
 * waits for its end). A question with no recipient, or on a channel that addresses nobody, pays
 * nothing; any other pays one read of its recipient's link, and a linked one a read of the
 * person's preferences. A link question
 * (`linkFor`) is never held: it is how the link is made, and its person is waiting for it.
 */
export function createChannelHold(o: ChannelHoldOptions): (q: QuestionRecord) => Promise<boolean> {
  const marks = heldMarks(o.people);
  return async (q) => {
    if (q.channel === null || q.recipient === null || q.linkFor !== undefined) return false;
    if (!o.addressesPeople(q.channel)) return false;
    const person = await o.links.personOf(q.channel, q.recipient);
    if (person === null) return false;
    const now = o.clock();
    if (releaseAt(await o.prefsOf(person), now) === null) return false;
    await marks.mark(q);
    await o.outbox.add(q.id, [`${QUIET_TARGET}:${q.channel}`], now);
    return true;
  };
}
