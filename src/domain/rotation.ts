// On-call rotations (API.md §22): `{every, startsAt, order, handoverAt, timeZone}` names who of a
// group is on duty at any instant. Pure: the instant is passed in; local dates and times come
// from Intl (the time-zone database the runtime ships), never from the process's own zone.
//
// The first shift (order[0]) starts at `startsAt`. Duty passes to the next in `order` at
// `handoverAt`, local time in `timeZone`, every `every` days counted from startsAt's local date:
// with startsAt Monday 08:00, handoverAt 09:00 and every 1w, order[1] takes over the next
// Monday at 09:00 and order[2] the Monday after. Wall-clock times are compared, so a handover
// on a daylight-saving day happens when the local clock first shows handoverAt or later.
import { badInput } from './errors.ts';
import { checkIdentities } from './groups.ts';
import { isPlainObject, listChoices, own } from './values.ts';

export const ROTATION_PERIODS = { '1d': 1, '1w': 7, '2w': 14 } as const;
export type RotationPeriod = keyof typeof ROTATION_PERIODS;

export interface Rotation {
  every: RotationPeriod;
  /** Epoch ms: when order[0]'s first shift starts. */
  startsAt: number;
  order: readonly string[];
  /** Local "HH:MM" in timeZone. */
  handoverAt: string;
  /** An IANA zone, e.g. "Europe/Paris". */
  timeZone: string;
}

const ROTATION_KEYS = new Set(['every', 'startsAt', 'order', 'handoverAt', 'timeZone']);
const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const MS_PER_DAY = 86_400_000;

/** A formatter of local dates and times in `timeZone`; throws RangeError on an unknown zone. */
function localClock(timeZone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** The local calendar day (days since 1970-01-01) and "HH:MM" of `at` in the formatter's zone. */
function localDayAndTime(clock: Intl.DateTimeFormat, at: number): { day: number; time: string } {
  const parts: Record<string, string> = {};
  for (const p of clock.formatToParts(at)) parts[p.type] = p.value;
  const day = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)) / MS_PER_DAY;
  return { day, time: `${parts.hour}:${parts.minute}` };
}

export function checkRotation(raw: unknown, field: string): Rotation {
  if (!isPlainObject(raw)) {
    throw badInput('a rotation must be an object {every, startsAt, order, handoverAt, timeZone}', field);
  }
  for (const key of Object.keys(raw)) {
    if (!ROTATION_KEYS.has(key)) {
      throw badInput(
        `unknown field (expected: ${listChoices(ROTATION_KEYS)})`,
        `${field}.${key.slice(0, 64)}`,
      );
    }
  }
  const every = own(raw, 'every');
  if (typeof every !== 'string' || !Object.hasOwn(ROTATION_PERIODS, every)) {
    throw badInput(`every must be one of ${listChoices(Object.keys(ROTATION_PERIODS))}`, `${field}.every`);
  }
  const startsAtRaw = own(raw, 'startsAt');
  // YAML reads an unquoted timestamp as a Date; JSON gives the RFC 3339 text.
  const startsAt =
    startsAtRaw instanceof Date
      ? startsAtRaw.getTime()
      : typeof startsAtRaw === 'string' && /^\d{4}-\d\d-\d\dT/.test(startsAtRaw)
        ? Date.parse(startsAtRaw)
        : Number.NaN;
  if (!Number.isFinite(startsAt)) {
    throw badInput(
      'startsAt must be an RFC 3339 date and time, e.g. 2026-01-05T09:00:00Z',
      `${field}.startsAt`,
    );
  }
  const order = checkIdentities(own(raw, 'order'), `${field}.order`);
  const handoverAt = own(raw, 'handoverAt') ?? '09:00';
  if (typeof handoverAt !== 'string' || !HH_MM.test(handoverAt)) {
    throw badInput('handoverAt must be a local time "HH:MM" (00:00 to 23:59)', `${field}.handoverAt`);
  }
  const timeZone = own(raw, 'timeZone') ?? 'UTC';
  if (typeof timeZone !== 'string') throw badInput('timeZone must be an IANA time zone', `${field}.timeZone`);
  try {
    localClock(timeZone);
  } catch {
    throw badInput('timeZone must be an IANA time zone, e.g. Europe/Paris', `${field}.timeZone`);
  }
  return { every: every as RotationPeriod, startsAt, order, handoverAt, timeZone };
}

/** Who of `r.order` is on duty at `at`; null before the rotation starts. */
export function onDuty(r: Rotation, at: number): string | null {
  if (at < r.startsAt || r.order.length === 0) return null;
  const clock = localClock(r.timeZone);
  const start = localDayAndTime(clock, r.startsAt);
  const now = localDayAndTime(clock, at);
  const days = ROTATION_PERIODS[r.every];
  const since = now.day - start.day;
  // Handover k (k ≥ 1) is at handoverAt on the local day start.day + k·days.
  let shift = Math.floor(since / days);
  if (shift >= 1 && since % days === 0 && now.time < r.handoverAt) shift -= 1;
  return r.order[shift % r.order.length] ?? null;
}
