// Times as the inbox shows them: the time left until a question times out, and when things happened.

export interface TimeLeft {
  text: string;
  /** Under five minutes left. */
  urgent: boolean;
  /** The deadline has passed (the server's TIMED_OUT event is on its way). */
  expired: boolean;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** "45 s left", "4 min 10 s left", "2 h 5 min left", "3 days left"; "time is up" once past. */
export function timeLeft(deadlineMs: number, nowMs: number): TimeLeft {
  if (Number.isNaN(deadlineMs)) return { text: 'no deadline known', urgent: false, expired: false };
  const ms = deadlineMs - nowMs;
  if (ms <= 0) return { text: 'time is up', urgent: true, expired: true };
  const urgent = ms < 5 * MINUTE;
  let text: string;
  if (ms < MINUTE) text = `${Math.ceil(ms / 1000)} s left`;
  else if (ms < 5 * MINUTE) {
    const s = Math.floor((ms % MINUTE) / 1000);
    text = `${Math.floor(ms / MINUTE)} min${s > 0 ? ` ${s} s` : ''} left`;
  } else if (ms < HOUR) text = `${Math.floor(ms / MINUTE)} min left`;
  else if (ms < 2 * DAY) {
    const m = Math.floor((ms % HOUR) / MINUTE);
    text = `${Math.floor(ms / HOUR)} h${m > 0 ? ` ${m} min` : ''} left`;
  } else text = `${plural(Math.floor(ms / DAY), 'day')} left`;
  return { text, urgent, expired: false };
}

// Making an Intl.DateTimeFormat costs far more than using one, and every card shows a time.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** A moment in the reader's locale, e.g. "3 Mar 2025, 14:05:09"; empty when unknown. */
export function formatWhen(ms: number, locale?: string): string {
  if (Number.isNaN(ms)) return '';
  const key = locale ?? '';
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' });
    formatters.set(key, f);
  }
  return f.format(ms);
}
