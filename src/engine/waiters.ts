// Waiters in this process, by question id. A blocked asker costs a map entry and a
// promise; the hub settles it when the question's announcement (or a re-read) says it
// left PENDING.
import type { QuestionRecord } from '../domain/question.ts';

export interface Waiter {
  /** Settles with the question once it is no longer pending, or null when released. */
  settled: Promise<QuestionRecord | null>;
  dispose(): void;
}

export interface WaiterRegistry {
  register(id: string): Waiter;
  /** Settles every waiter of this question if it is resolved. */
  notify(q: QuestionRecord): void;
  /** The engine is stopping: settle every waiter, and every later one, with null. */
  release(): void;
  /** Accept waiters again (the engine started). */
  reopen(): void;
  ids(): string[];
  size(): number;
}

export function createWaiterRegistry(): WaiterRegistry {
  const byId = new Map<string, Set<(q: QuestionRecord | null) => void>>();
  let released = false;
  return {
    register(id) {
      let settle!: (q: QuestionRecord | null) => void;
      const settled = new Promise<QuestionRecord | null>((r) => {
        settle = r;
      });
      if (released) settle(null);
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
    release() {
      released = true;
      for (const set of byId.values()) for (const settle of set) settle(null);
    },
    reopen() {
      released = false;
    },
    ids: () => [...byId.keys()],
    size: () => byId.size,
  };
}

export type RaceOutcome =
  | { kind: 'settled'; question: QuestionRecord }
  | { kind: 'timer' }
  | { kind: 'aborted' };

/** Waits for the waiter, a timer, or an abort, whichever comes first, and cleans up after. */
export function raceWaiter(waiter: Waiter, ms: number, signal?: AbortSignal): Promise<RaceOutcome> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  return new Promise<RaceOutcome>((resolve) => {
    const done = (o: RaceOutcome): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(o);
    };
    const onAbort = (): void => done({ kind: 'aborted' });
    const timer = setTimeout(() => done({ kind: 'timer' }), Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
    // null: the registry released its waiters (the engine is stopping).
    waiter.settled.then((question) => done(question ? { kind: 'settled', question } : { kind: 'aborted' }));
  });
}
