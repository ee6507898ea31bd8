// Quiet hours and digests (API.md §22): when a person's pushes, e-mails and direct messages are
// held, and when what was held is released as one digest. Pure: time is passed in; local times
// come from the IANA time zone through Intl (no clock, no I/O).
import { badInput } from './errors.ts';

export const DIGESTS = ['NONE', 'HOURLY', 'DAILY'] as const;
export type Digest = (typeof DIGESTS)[number];

export interface QuietHours {
  /** "HH:MM", local to `timeZone`: holding starts at this minute. */
  from: string;
  /** "HH:MM": holding ends at this minute (the next day's when earlier than `from`). */
  to: string;
  timeZone: string;
}

export interface NotificationPrefs {
  quietHours: QuietHours | null;
  digest: Digest;
}

export const NO_PREFS: NotificationPrefs = Object.freeze({ quietHours: null, digest: 'NONE' });
/** A DAILY digest without quiet hours is released at this local time. */
export const DAILY_DIGEST_AT = '09:00';
const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

function minutesOf(hhmm: string): number {
  const m = HHMM.exec(hhmm);
  if (!m) throw badInput(`expected "HH:MM" (00:00 to 23:59), got ${JSON.stringify(hhmm)}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

function checkTimeZone(tz: unknown, field: string): string {
  if (typeof tz !== 'string' || tz === '' || tz.length > 64)
    throw badInput('expected an IANA time zone', field);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw badInput(
      `unknown time zone ${JSON.stringify(tz)} (an IANA name such as "Europe/Paris" or "UTC")`,
      field,
    );
  }
  return tz;
}

/** Checks `setNotificationPrefs`'s input; BAD_USER_INPUT names the field. */
export function checkPrefs(input: { quietHours?: unknown; digest?: unknown }): NotificationPrefs {
  const digest = input.digest ?? 'NONE';
  if (typeof digest !== 'string' || !(DIGESTS as readonly string[]).includes(digest)) {
    throw badInput(`digest: expected one of ${DIGESTS.join(', ')}`, 'input.digest');
  }
  const q = input.quietHours;
  if (q === undefined || q === null) return { quietHours: null, digest: digest as Digest };
  if (typeof q !== 'object') throw badInput('quietHours: expected {from, to, timeZone}', 'input.quietHours');
  const { from, to, timeZone } = q as Record<string, unknown>;
  for (const [name, v] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (typeof v !== 'string' || !HHMM.test(v)) {
      throw badInput(`quietHours.${name}: expected "HH:MM" (00:00 to 23:59)`, `input.quietHours.${name}`);
    }
  }
  if (from === to) throw badInput('quietHours: from and to must differ', 'input.quietHours.to');
  const tz = checkTimeZone(timeZone, 'input.quietHours.timeZone');
  return { quietHours: { from: from as string, to: to as string, timeZone: tz }, digest: digest as Digest };
}

/** Minutes since local midnight at `now` in `timeZone` (seconds left out). */
export function localMinutes(now: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(now));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return get('hour') * 60 + get('minute');
}

/** The next instant (after `now`) at which the local clock reads `target` minutes. */
function nextLocal(now: number, timeZone: string, target: number): number {
  const startOfMinute = now - (now % MINUTE);
  const ahead = (target - localMinutes(now, timeZone) + DAY_MINUTES) % DAY_MINUTES || DAY_MINUTES;
  return startOfMinute + ahead * MINUTE;
}

/** When the quiet hours holding `now` end, or null when `now` is not in them. */
export function quietEnd(prefs: NotificationPrefs, now: number): number | null {
  const q = prefs.quietHours;
  if (!q) return null;
  const from = minutesOf(q.from);
  const to = minutesOf(q.to);
  const at = localMinutes(now, q.timeZone);
  const inside = from < to ? at >= from && at < to : at >= from || at < to;
  return inside ? nextLocal(now, q.timeZone, to) : null;
}

/**
 * When a notification due at `now` goes out: null for now, else the instant it is released
 * (with whatever else was held, as one digest): the end of quiet hours, or the digest's next
 * time (HOURLY: the next full hour; DAILY: the end of quiet hours, or 09:00 local without them).
 */
export function releaseAt(prefs: NotificationPrefs, now: number): number | null {
  const quiet = quietEnd(prefs, now);
  if (quiet !== null) return quiet;
  const tz = prefs.quietHours?.timeZone ?? 'UTC';
  if (prefs.digest === 'HOURLY') {
    const at = localMinutes(now, tz);
    const next = nextLocal(now, tz, ((Math.floor(at / 60) + 1) * 60) % DAY_MINUTES);
    return quietEnd(prefs, next) ?? next;
  }
  if (prefs.digest === 'DAILY') {
    return nextLocal(now, tz, minutesOf(prefs.quietHours?.to ?? DAILY_DIGEST_AT));
  }
  return null;
}

/** The stored form, read back (NO_PREFS when absent or unreadable). */
export function parsePrefs(text: string | null): NotificationPrefs {
  if (!text) return NO_PREFS;
  try {
    return checkPrefs(JSON.parse(text) as Record<string, unknown>);
  } catch {
    return NO_PREFS;
  }
}
