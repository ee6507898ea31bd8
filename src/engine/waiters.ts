// Waiters in this process, by question id. A blocked asker costs a map entry and a
// promise; the hub settles it when the question's announcement (or a re-read) says it
// left PENDING, or when a re-read finds its record gone.
import type { QuestionRecord } from '../domain/question.ts';

/** What a waiter settles with: the resolved question, GONE (its record vanished), or null (released). */
export type Settlement = QuestionRecord | typeof GONE | null;

/** The record of the question no longer exists (e.g. Redis restarted without persistence). */
export const GONE = Symbol('gone');

export interface Waiter {
  settled: Promise<Settlement>;
  dispose(): void;
}

export interface WaiterRegistry {
  register(id: string): Waiter;
  /** Settles every waiter of this question if it is resolved. */
  notify(q: QuestionRecord): void;
  /** Whether anyone waits on this question here. */
  has(id: string): boolean;
  /** The question's record is gone: settle its waiters with GONE. */
  vanish(id: string): void;
  /** The engine is stopping: settle every waiter, and every later one, with null. */
  release(): void;
  /** Accept waiters again (the engine started). */
  reopen(): void;
  ids(): string[];
  size(): number;
  /** Waiters of every question together (one per held call). */
  held(): number;
}

export function createWaiterRegistry(): WaiterRegistry {
  const byId = new Map<string, Set<(s: Settlement) => void>>();
  let released = false;
  return {
    register(id) {
      let settle!: (s: Settlement) => void;
      const settled = new Promise<Settlement>((r) => {
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
    has: (id) => byId.has(id),
    vanish(id) {
      const set = byId.get(id);
      if (set) for (const settle of set) settle(GONE);
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
    held() {
      let n = 0;
      for (const set of byId.values()) n += set.size;
      return n;
    },
  };
}

export type RaceOutcome =
  | { kind: 'settled'; question: QuestionRecord }
  | { kind: 'timer' }
  | { kind: 'gone' }
  | { kind: 'aborted' };

/**
 * What ends a wait early: an AbortSignal, or anything shaped like one (the /graphql route
 * listens to the response itself rather than keep an AbortController per held call).
 * Listeners are always removed when the wait ends.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Waits for the waiter, a timer, or an abort, whichever comes first, and cleans up after. */
export function raceWaiter(waiter: Waiter, ms: number, signal?: CancelSignal): Promise<RaceOutcome> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  return new Promise<RaceOutcome>((resolve) => {
    const done = (o: RaceOutcome): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(o);
    };
    const onAbort = (): void => done({ kind: 'aborted' });
    const timer = setTimeout(() => done({ kind: 'timer' }), Math.max(0, ms));
    signal?.addEventListener('abort', onAbort);
    waiter.settled.then((s) => {
      // null: the registry released its waiters (the engine is stopping).
      if (s === null) done({ kind: 'aborted' });
      else if (s === GONE) done({ kind: 'gone' });
      else done({ kind: 'settled', question: s });
    });
  });
}
