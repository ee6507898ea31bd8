// Waiters in this process, by question id. A blocked asker costs a map entry and a
// promise; the hub settles it when the question's announcement (or a re-read) says it
// left PENDING.
import type { QuestionRecord } from '../domain/question.ts';

export interface Waiter {
  /** Settles with the question once it is no longer pending. */
  settled: Promise<QuestionRecord>;
  dispose(): void;
}

export interface WaiterRegistry {
  register(id: string): Waiter;
  /** Settles every waiter of this question if it is resolved. */
  notify(q: QuestionRecord): void;
  ids(): string[];
  size(): number;
}

export function createWaiterRegistry(): WaiterRegistry {
  const byId = new Map<string, Set<(q: QuestionRecord) => void>>();
  return {
    register(id) {
      let settle!: (q: QuestionRecord) => void;
      const settled = new Promise<QuestionRecord>((r) => {
        settle = r;
      });
      let set = byId.get(id);
      if (!set) {
        set = new Set();
        byId.set(id, set);
      }
      set.add(settle);
      return {
        settled,
        dispose() {
          const s = byId.get(id);
          if (!s) return;
          s.delete(settle);
          if (s.size === 0) byId.delete(id);
        },
      };
    },
    notify(q) {
      if (q.status === 'PENDING') return;
      const set = byId.get(q.id);
      if (set) for (const settle of set) settle(q);
    },
    ids: () => [...byId.keys()],
    size: () => byId.size,
  };
}

export type RaceOutcome =
  | { kind: 'settled'; question: QuestionRecord }
  | { kind: 'timer' }
  | { kind: 'aborted' };

/** Waits for the waiter, a timer, or any abort, whichever comes first, and cleans up after. */
export function raceWaiter(
  waiter: Waiter,
  ms: number,
  signals: readonly (AbortSignal | undefined)[],
): Promise<RaceOutcome> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  if (live.some((s) => s.aborted)) return Promise.resolve({ kind: 'aborted' });
  return new Promise<RaceOutcome>((resolve) => {
    const done = (o: RaceOutcome): void => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', onAbort);
      resolve(o);
    };
    const onAbort = (): void => done({ kind: 'aborted' });
    const timer = setTimeout(() => done({ kind: 'timer' }), Math.max(0, ms));
    for (const s of live) s.addEventListener('abort', onAbort, { once: true });
    waiter.settled.then((question) => done({ kind: 'settled', question }));
  });
}
