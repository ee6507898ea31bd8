// Answering a group's CONFIRM questions together: each is still its own answer (its own claim,
// checked by the server on its own), sent a few at a time so a batch of hundreds neither floods
// the server nor waits for one call at a time; every failure is reported for its own card.
import type { Question } from './model.ts';

/** Answers in flight at once. */
export const BATCH_CONCURRENCY = 4;

export type BatchSend = (q: Question) => Promise<{ ok: true } | { ok: false; message: string }>;

export interface BatchProgress {
  total: number;
  done: number;
  failed: number;
  running: boolean;
}

/**
 * Sends every question, at most `concurrency` at once; `progress` hears after each one, and the
 * result is the final tally. A send that throws counts as failed and never stops the rest.
 */
export async function runBatch(
  questions: readonly Question[],
  send: BatchSend,
  progress: (p: BatchProgress) => void,
  concurrency = BATCH_CONCURRENCY,
): Promise<BatchProgress> {
  const tally: BatchProgress = { total: questions.length, done: 0, failed: 0, running: true };
  progress({ ...tally });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < questions.length) {
      const q = questions[next++]!;
      let ok = false;
      try {
        ok = (await send(q)).ok;
      } catch {
        ok = false;
      }
      if (ok) tally.done++;
      else tally.failed++;
      if (tally.done + tally.failed < tally.total) progress({ ...tally });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, questions.length) }, worker));
  tally.running = false;
  progress({ ...tally });
  return { ...tally };
}
