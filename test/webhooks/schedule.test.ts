// The resume-webhook retry schedule (API.md §12) as a pure function.
import { describe, expect, it } from 'vitest';
import { baseDelayMs, nextAttemptAt, RETRY_WINDOW_MS } from '../../src/engine/outbox/webhook-schedule.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('nextAttemptAt', () => {
  it('waits about 1 s, 5 s, 30 s, 2 min, 10 min, 1 h, then 3 h between attempts', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map(baseDelayMs)).toEqual([
      1000,
      5000,
      30_000,
      2 * MIN,
      10 * MIN,
      HOUR,
      3 * HOUR,
      3 * HOUR,
      3 * HOUR,
    ]);
    // A draw of 0.5 is the middle of the jitter band: the base delay itself.
    expect(nextAttemptAt({ attempt: 3, firstAt: 0, now: 1000, random: 0.5 })).toBe(1000 + 2 * MIN);
  });

  it('jitters each wait by up to ±20 %', () => {
    expect(nextAttemptAt({ attempt: 1, firstAt: 0, now: 0, random: 0 })).toBe(4000);
    expect(nextAttemptAt({ attempt: 1, firstAt: 0, now: 0, random: 0.999_999 })).toBe(6000);
  });

  it('stops once the next attempt would fall more than 24 h after the first', () => {
    const firstAt = 1_000_000;
    // Exactly at the window's end is still allowed; one millisecond past is not.
    const lastIn = firstAt + RETRY_WINDOW_MS - 3 * HOUR;
    expect(nextAttemptAt({ attempt: 9, firstAt, now: lastIn, random: 0.5 })).toBe(firstAt + RETRY_WINDOW_MS);
    expect(nextAttemptAt({ attempt: 9, firstAt, now: lastIn + 1, random: 0.5 })).toBeNull();
  });

  it('walks the whole schedule within 24 h', () => {
    let now = 0;
    const waits: number[] = [];
    for (let attempt = 0; ; attempt++) {
      const at = nextAttemptAt({ attempt, firstAt: 0, now, random: 0.5 });
      if (at === null) break;
      waits.push(at - now);
      now = at;
    }
    expect(waits.slice(0, 7)).toEqual([1000, 5000, 30_000, 2 * MIN, 10 * MIN, HOUR, 3 * HOUR]);
    expect(now).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(now + 3 * HOUR).toBeGreaterThan(RETRY_WINDOW_MS);
  });

  it('scales every wait and the window alike', () => {
    expect(nextAttemptAt({ attempt: 0, firstAt: 0, now: 0, random: 0.5, scale: 0.001 })).toBe(1);
    expect(
      nextAttemptAt({ attempt: 9, firstAt: 0, now: RETRY_WINDOW_MS / 1000, random: 0.5, scale: 0.001 }),
    ).toBeNull();
  });
});
