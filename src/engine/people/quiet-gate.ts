// Quiet hours and digests at delivery time (API.md §22). A notification due for a person in
// quiet hours (or with a digest) is held: noted in a small per-device map in the people table
// with the instant it is released, and its outbox item is retried at that instant. The first
// held item released takes every held note that is due — each note is deleted by exactly one
// taker (an atomic field delete), so across instances every held question goes out once — and
// sends them as one digest; the items whose notes another took are done without sending.
// The question waits in the inbox meanwhile; an escalation step still fires (only its
// notifications to this person are held, and a step may route the question to someone else).
import type { NotificationPrefs } from '../../domain/notification-prefs.ts';
import { releaseAt } from '../../domain/notification-prefs.ts';
import type { PeopleStore } from '../../store/people.ts';

/** Most notes held per device; past it a notification goes out at once rather than be lost. */
export const MAX_HELD = 500;
const KEEP_AFTER_RELEASE_MS = 24 * 3600 * 1000;

export type GateVerdict =
  /** Send now, as usual. */
  | { kind: 'now' }
  /** Held: retry the item at `at`. */
  | { kind: 'hold'; at: number }
  /** Released: send one notification for `ids` (this question among them; a digest when several). */
  | { kind: 'release'; ids: string[] }
  /** Another held item's digest carried this one: nothing to send. */
  | { kind: 'carried' };

export interface QuietGateOptions {
  people: PeopleStore;
  prefsOf: (personId: string) => Promise<NotificationPrefs>;
  /** Which of `ids` are still pending (a digest names only those). */
  pendingOf: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
  clock: () => number;
}

export type QuietGate = (personId: string, device: string, questionId: string) => Promise<GateVerdict>;

export function createQuietGate(o: QuietGateOptions): QuietGate {
  const heldKey = (device: string): string => `held:${device}`;
  const carriedKey = (device: string, id: string): string => `carried:${device}:${id}`;
  return async (personId, device, questionId) => {
    const now = o.clock();
    const key = heldKey(device);
    const held = await o.people.mapAll(key, now);
    const mine = held[questionId];
    if (mine === undefined) {
      // Carried by another item's digest (its note is gone, the carrier's mark stays a while);
      // the carrier itself, retried after a failed send, goes out as itself.
      const carrier = await o.people.get(carriedKey(device, questionId), now);
      if (carrier !== null)
        return carrier === questionId ? { kind: 'release', ids: [questionId] } : { kind: 'carried' };
      const at = releaseAt(await o.prefsOf(personId), now);
      if (at === null) return { kind: 'now' };
      const noted = await o.people.mapSet(key, questionId, String(at), MAX_HELD, at + KEEP_AFTER_RELEASE_MS);
      return noted === 'set' ? { kind: 'hold', at } : { kind: 'now' };
    }
    const at = Number(mine);
    if (now < at) return { kind: 'hold', at };
    // Released: take every due note; the delete decides who carries each one.
    const due = Object.entries(held).filter(([, until]) => Number(until) <= now);
    // Marked before the notes are deleted, so an item that finds its note gone finds the mark.
    for (const [id] of due)
      await o.people.put(carriedKey(device, id), questionId, now + KEEP_AFTER_RELEASE_MS);
    const taken: string[] = [];
    for (const [id] of due) if (await o.people.mapDelete(key, id)) taken.push(id);
    if (!taken.includes(questionId)) return { kind: 'carried' };
    const pending = await o.pendingOf(taken);
    return { kind: 'release', ids: taken.filter((id) => id === questionId || pending.has(id)) };
  };
}

/** A push digest: how many questions wait, nothing of what they say (some may be sensitive). */
export function digestPushPayload(count: number): string {
  return JSON.stringify({
    v: 1,
    title: `${count} questions are waiting`,
    body: '',
    url: '/',
    actions: [],
    digest: count,
  });
}
