// Channel links (API.md §22): which person a channel recipient is, so that quiet hours and
// digests hold channel deliveries too. A person links a recipient (a Slack user or DM, a Telegram
// chat, a phone number, an e-mail address) from the inbox; the server sends that recipient a
// CONFIRM question (QuestionSpec.linkFor names the person) and the link is recorded when it is
// answered "yes" from that channel: the answer from the channel is what proves the person can
// read there. Kept in the store's people table so every instance sees the same:
//   `chlink:<sha256(channel \0 recipient)>` → {person, by, at}   (read on every held check)
//   `chlinks:<sha256(person)>` map, field `<channel>\0<recipient>` → linkedAt (their list)
// A recipient is linked to one person; a later confirmed link replaces an earlier one. Linking
// and unlinking are audited (CHANNEL_LINKED, CHANNEL_UNLINKED) in the same store step as the link.
import { createHash } from 'node:crypto';
import type { PeopleStore } from '../../store/people.ts';

/** A link lives this long after it was confirmed (as preferences do); confirming again renews it. */
export const LINK_KEEP_MS = 400 * 24 * 3600 * 1000;
/** Most recipients one person links. */
export const MAX_LINKS = 10;
/** How long a link question waits for its "yes". */
export const LINK_QUESTION_SECONDS = 15 * 60;

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const linkKey = (channel: string, recipient: string): string => `chlink:${sha(`${channel}\0${recipient}`)}`;
const listKey = (person: string): string => `chlinks:${sha(person)}`;
const fieldOf = (channel: string, recipient: string): string => `${channel}\0${recipient}`;

export interface ChannelLink {
  channel: string;
  recipient: string;
  /** The channel identity that confirmed it (`<channel>:<provider user id>`). */
  confirmedBy: string;
  /** Epoch ms. */
  linkedAt: number;
}

interface Stored {
  person: string;
  by: string;
  at: number;
}

function parseStored(text: string | null): Stored | null {
  if (!text) return null;
  try {
    const s = JSON.parse(text) as Stored;
    return typeof s.person === 'string' && typeof s.by === 'string' && typeof s.at === 'number' ? s : null;
  } catch {
    return null;
  }
}

export interface ChannelLinks {
  /** The person `recipient` of `channel` is linked to, or null: one store read. */
  personOf(channel: string, recipient: string): Promise<string | null>;
  /**
   * Records the link a confirmed link question asked for, replacing the recipient's earlier
   * link, audited; 'full' when the person already has MAX_LINKS other links.
   */
  confirm(
    person: string,
    channel: string,
    recipient: string,
    by: string,
    via: string,
  ): Promise<'linked' | 'full'>;
  /** The person's live links, newest first. */
  list(person: string): Promise<ChannelLink[]>;
  /** Ends the person's link of `recipient`, audited; false when they had none. */
  unlink(person: string, channel: string, recipient: string): Promise<boolean>;
}

export function createChannelLinks(people: PeopleStore, clock: () => number): ChannelLinks {
  return {
    async personOf(channel, recipient) {
      return parseStored(await people.get(linkKey(channel, recipient), clock()))?.person ?? null;
    },

    async confirm(person, channel, recipient, by, via) {
      const now = clock();
      const field = fieldOf(channel, recipient);
      const added = await people.mapSet(listKey(person), field, String(now), MAX_LINKS, now + LINK_KEEP_MS);
      if (added === 'full') return 'full';
      const previous = parseStored(await people.get(linkKey(channel, recipient), now));
      const stored: Stored = { person, by, at: now };
      await people.putAudited(linkKey(channel, recipient), JSON.stringify(stored), now + LINK_KEEP_MS, {
        type: 'CHANNEL_LINKED',
        questionId: null,
        actor: by,
        via,
        detail: { person, channel, confirmedBy: by },
        at: now,
      });
      // The recipient was someone else's: it is not theirs any more.
      if (previous && previous.person !== person) await people.mapDelete(listKey(previous.person), field);
      return 'linked';
    },

    async list(person) {
      const now = clock();
      const fields = Object.keys(await people.mapAll(listKey(person), now));
      const out: ChannelLink[] = [];
      for (const field of fields) {
        const [channel = '', recipient = ''] = field.split('\0');
        const s = parseStored(await people.get(linkKey(channel, recipient), now));
        if (s?.person === person) out.push({ channel, recipient, confirmedBy: s.by, linkedAt: s.at });
        // Taken by someone else's later link: no longer theirs, nor counted in MAX_LINKS. (Not
        // when there is no link at all: a confirmation between its two writes looks like that.)
        else if (s) await people.mapDelete(listKey(person), field);
      }
      return out.sort((a, b) => b.linkedAt - a.linkedAt);
    },

    async unlink(person, channel, recipient) {
      const now = clock();
      const key = linkKey(channel, recipient);
      const text = await people.get(key, now);
      const s = parseStored(text);
      await people.mapDelete(listKey(person), fieldOf(channel, recipient));
      if (!text || !s || s.person !== person) return false;
      return people.deleteAudited(key, text, {
        type: 'CHANNEL_UNLINKED',
        questionId: null,
        actor: person,
        via: 'api',
        detail: { channel },
        at: now,
      });
    },
  };
}
