// A person's quiet hours and digest (API.md §22), kept in the store's people table so every
// instance reads the same: set by the person (GraphQL, inbox settings), read by the deliveries
// that honour them (quiet-gate.ts). Keyed by the SHA-256 of the identity, like names. Each change
// is audited (NOTIFICATION_PREFS_CHANGED) in the same store step.
import { createHash } from 'node:crypto';
import { canAnswer } from '../../domain/access.ts';
import { DomainError } from '../../domain/errors.ts';
import { checkPrefs, type NotificationPrefs, parsePrefs } from '../../domain/notification-prefs.ts';
import type { Principal } from '../../domain/principal.ts';
import type { PeopleStore } from '../../store/people.ts';

/** Preferences are kept this long after they were last set (as names are). */
export const PREFS_KEEP_MS = 400 * 24 * 3600 * 1000;

const prefsKey = (id: string): string => `prefs:${createHash('sha256').update(id).digest('hex')}`;

/** The NOTIFICATION_PREFS_CHANGED entry's facts: the settings themselves (nothing in them is secret). */
export function prefsAuditDetail(prefs: NotificationPrefs): Record<string, string | null> {
  const q = prefs.quietHours;
  return {
    digest: prefs.digest,
    quietFrom: q?.from ?? null,
    quietTo: q?.to ?? null,
    timeZone: q?.timeZone ?? null,
  };
}

export interface NotificationPrefsService {
  get(principalId: string): Promise<NotificationPrefs>;
  set(p: Principal, input: { quietHours?: unknown; digest?: unknown }): Promise<NotificationPrefs>;
}

export function createNotificationPrefs(people: PeopleStore, clock: () => number): NotificationPrefsService {
  return {
    async get(principalId) {
      return parsePrefs(await people.get(prefsKey(principalId), clock()));
    },
    async set(p, input) {
      if (!canAnswer(p)) {
        throw new DomainError('FORBIDDEN', 'only people who answer questions have notification preferences');
      }
      const prefs = checkPrefs(input);
      const now = clock();
      await people.putAudited(prefsKey(p.id), JSON.stringify(prefs), now + PREFS_KEEP_MS, {
        type: 'NOTIFICATION_PREFS_CHANGED',
        questionId: null,
        actor: p.id,
        via: 'api',
        detail: prefsAuditDetail(prefs),
        at: now,
      });
      return prefs;
    },
  };
}
