// Approving a group together: every question is sent on its own, at most a few at a time; each
// failure (a refusal or a throw) is counted and never stops the rest; progress is reported.
import { describe, expect, it } from 'vitest';
import { type BatchProgress, runBatch } from '../../src/inbox/lib/batch.ts';
import type { Question } from '../../src/inbox/lib/model.ts';

const questions = Array.from({ length: 12 }, (_, i) => ({ id: `q${i}` }) as Question);

describe('runBatch', () => {
  it('sends every question once, at most `concurrency` at a time, and tallies failures per question', async () => {
    let inFlight = 0;
    let most = 0;
    const sent: string[] = [];
    const seen: BatchProgress[] = [];
    const result = await runBatch(
      questions,
      async (q) => {
        inFlight++;
        most = Math.max(most, inFlight);
        sent.push(q.id);
        await Promise.resolve();
        inFlight--;
        if (q.id === 'q3') return { ok: false, message: 'refused' };
        if (q.id === 'q7') throw new Error('network');
        return { ok: true };
      },
      (p) => seen.push(p),
      4,
    );
    expect(sent.sort()).toEqual(questions.map((q) => q.id).sort());
    expect(most).toBe(4);
    expect(result).toEqual({ total: 12, done: 10, failed: 2, running: false });
    expect(seen[0]).toEqual({ total: 12, done: 0, failed: 0, running: true });
    expect(seen.at(-1)).toEqual(result);
    expect(seen.filter((p) => !p.running)).toHaveLength(1);
  });

  it('finishes at once with nothing to send', async () => {
    const result = await runBatch(
      [],
      async () => ({ ok: true }),
      () => {},
    );
    expect(result).toEqual({ total: 0, done: 0, failed: 0, running: false });
  });
});
