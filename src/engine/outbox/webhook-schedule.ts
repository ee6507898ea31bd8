// When a failed resume-webhook delivery is tried again (API.md §12): about 1 s, 5 s, 30 s,
// 2 min, 10 min and 1 h between successive attempts, then every 3 h, until 24 h have passed
// since the first attempt. Pure: the caller passes the clock reading and the random draw.

const STEPS_MS = [1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000] as const;
const LATER_MS = 3 * 3_600_000;
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** Each wait is stretched or shrunk by up to this fraction, so failed receivers are not hit in step. */
export const JITTER = 0.2;

export interface RetryInput {
  /** Attempts made before the one that just failed (0 after the first). */
  attempt: number;
  /** When the first attempt was due (epoch ms). */
  firstAt: number;
  now: number;
  /** A draw in [0, 1). */
  random: number;
  /** Shrinks every wait and the window alike (tests); 1 in production. */
  scale?: number;
}

/** The wait after the failed attempt number `attempt` (0-based), before jitter. */
export function baseDelayMs(attempt: number): number {
  return STEPS_MS[attempt] ?? LATER_MS;
}

/** When to try again, or null when the next attempt would fall outside the 24-hour window. */
export function nextAttemptAt(r: RetryInput): number | null {
  const scale = r.scale ?? 1;
  const factor = 1 - JITTER + 2 * JITTER * Math.min(Math.max(r.random, 0), 1);
  const at = r.now + Math.round(baseDelayMs(Math.max(0, r.attempt)) * factor * scale);
  return at - r.firstAt > RETRY_WINDOW_MS * scale ? null : at;
}
