// Questions asked and answered at once, each carrying the given follow-up targets, for tests
// that drive the outbox worker directly on a store.
import { expect } from 'vitest';
import type { QuestionStore } from '../../src/store/types.ts';
import { specOf } from './fixtures.ts';

export const OUTBOX_CREATE_OPTS = { maxPending: 1000, retentionMs: 60_000 };

/** Asks and resolves `n` questions carrying `targets`; returns their ids. */
export async function resolvedWithFollowUps(
  store: QuestionStore,
  n: number,
  targets: string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const spec = specOf();
    await store.create(spec, { ...OUTBOX_CREATE_OPTS, followUps: targets });
    const r = await store.claim(spec.id, {
      status: 'ANSWERED',
      answer: true,
      answeredBy: 'ops',
      now: Date.now(),
      retentionMs: OUTBOX_CREATE_OPTS.retentionMs,
    });
    expect(r.kind).toBe('won');
    ids.push(spec.id);
  }
  return ids;
}
