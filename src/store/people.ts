// What the store keeps about people (API.md §19): sign-in sessions, logins in flight, the names
// principals are shown by, and each person's push subscriptions. The store knows none of their
// meanings: the keys and values are the caller's (src/http/auth-sessions.ts, src/engine/people/names.ts,
// src/engine/people/push.ts) and every value is an opaque string. Sessions and logins are kept under
// the SHA-256 of their random id, never the id itself. Both stores implement it; on Redis it
// lives with the questions, so every instance sees the same sessions (a logout on one is a
// logout on all).

export interface PeopleStore {
  /** Keeps `value` under `key` until `expiresAt` (epoch ms), replacing what was there. */
  put(key: string, value: string, expiresAt: number): Promise<void>;
  /** The live value under `key` at `now`, or null (unknown and expired look the same). */
  get(key: string, now: number): Promise<string | null>;
  /** Reads and deletes `key` in one step: of several callers, exactly one gets the value. */
  take(key: string, now: number): Promise<string | null>;
  /** Deletes `key`; true when something was there. */
  delete(key: string): Promise<boolean>;
  /**
   * Sets `field` of the small map `owner` (push subscriptions) in one step, refused with
   * 'full' when the map already holds `maxFields` other fields. The map lives until `expiresAt`.
   */
  mapSet(
    owner: string,
    field: string,
    value: string,
    maxFields: number,
    expiresAt: number,
  ): Promise<'set' | 'full'>;
  /** Deletes one field; true when it was there. */
  mapDelete(owner: string, field: string): Promise<boolean>;
  /** Every field of map `owner` (empty when there is none). */
  mapAll(owner: string, now: number): Promise<Readonly<Record<string, string>>>;
}
