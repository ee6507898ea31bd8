// What the store keeps about people (API.md §19): sign-in sessions, logins in flight, the names
// principals are shown by, and each person's push subscriptions. The store knows none of their
// meanings: the keys and values are the caller's (src/http/auth-sessions.ts, src/engine/people/names.ts,
// src/engine/people/push.ts) and every value is an opaque string. Sessions and logins are kept under
// the SHA-256 of their random id, never the id itself. Both stores implement it; on Redis it
// lives with the questions, so every instance sees the same sessions (a logout on one is a
// logout on all).
import type { AuditDetail, AuditEntryType } from '../domain/audit.ts';

/**
 * The audit entry a people write carries (API.md §22): a claim made or ended, a person's
 * notification preferences set, a channel recipient linked or unlinked. Written in the same step
 * as the write, on both stores.
 */
export interface PeopleAudit {
  type: Extract<
    AuditEntryType,
    'CLAIMED' | 'UNCLAIMED' | 'NOTIFICATION_PREFS_CHANGED' | 'CHANNEL_LINKED' | 'CHANNEL_UNLINKED'
  >;
  questionId: string | null;
  actor: string;
  via: string;
  detail: AuditDetail | null;
  /** Epoch ms. */
  at: number;
}

export interface PeopleStore {
  /** Keeps `value` under `key` until `expiresAt` (epoch ms), replacing what was there. */
  put(key: string, value: string, expiresAt: number): Promise<void>;
  /** The live value under `key` at `now`, or null (unknown and expired look the same). */
  get(key: string, now: number): Promise<string | null>;
  /** Reads and deletes `key` in one step: of several callers, exactly one gets the value. */
  take(key: string, now: number): Promise<string | null>;
  /** Deletes `key`; true when something was there. */
  delete(key: string): Promise<boolean>;
  /** `put`, and its audit entry, in one step. */
  putAudited(key: string, value: string, expiresAt: number, audit: PeopleAudit): Promise<void>;
  /**
   * Deletes `key` when it still holds `expected` at `audit.at`, and writes the audit entry, in one
   * step; false (nothing deleted, nothing written) when it holds something else or nothing.
   */
  deleteAudited(key: string, expected: string, audit: PeopleAudit): Promise<boolean>;
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
