// Waiters in this process, by question id. A blocked asker costs a map entry and its own
// wait object (waiting.ts); the hub settles it when the question's announcement (or a re-read)
// says it left PENDING, or when a re-read finds its record gone.
import type { QuestionRecord } from '../../domain/question.ts';

/** What a waiter settles with: the resolved question, GONE (its record vanished), or null (released). */
export type Settlement = QuestionRecord | typeof GONE | null;

/** The record of the question no longer exists (e.g. Redis restarted without persistence). */
export const GONE = Symbol('gone');

/**
 * One waiting caller. The registry calls `settle` synchronously, possibly more than once and
 * from inside its own loops: a waiter keeps the first settlement it cares about, may remove
 * itself at once, and does the rest of its work later (never inside `settle`).
 */
export interface WaitTarget {
  settle(s: Settlement): void;
}

export interface WaiterRegistry {
  /** Registers `t` on question `id`; once released, `t` is settled with null at once. */
  add(id: string, t: WaitTarget): void;
  /** Unregisters `t` (nothing if it is not registered). */
  remove(id: string, t: WaitTarget): void;
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

/**
 * Most questions have one waiter: it is the map's value itself, and only a question with two or
 * more has a Set (a Set and its table cost about 150 bytes, once per held question).
 */
type Entry = WaitTarget | Set<WaitTarget>;

function settleAll(e: Entry, s: Settlement): void {
  if (e instanceof Set) for (const t of e) t.settle(s);
  else e.settle(s);
}

export function createWaiterRegistry(): WaiterRegistry {
  const byId = new Map<string, Entry>();
  let released = false;
  return {
    add(id, t) {
      const e = byId.get(id);
      if (e === undefined) byId.set(id, t);
      else if (e instanceof Set) e.add(t);
      else if (e !== t) byId.set(id, new Set([e, t]));
      if (released) t.settle(null);
    },
    remove(id, t) {
      const e = byId.get(id);
      if (e === t) byId.delete(id);
      else if (e instanceof Set && e.delete(t) && e.size === 0) byId.delete(id);
    },
    notify(q) {
      if (q.status === 'PENDING') return;
      const e = byId.get(q.id);
      if (e !== undefined) settleAll(e, q);
    },
    has: (id) => byId.has(id),
    vanish(id) {
      const e = byId.get(id);
      if (e !== undefined) settleAll(e, GONE);
    },
    release() {
      released = true;
      for (const e of [...byId.values()]) settleAll(e, null);
    },
    reopen() {
      released = false;
    },
    ids: () => [...byId.keys()],
    size: () => byId.size,
    held() {
      let n = 0;
      for (const e of byId.values()) n += e instanceof Set ? e.size : 1;
      return n;
    },
  };
}

/**
 * What ends a wait early: an AbortSignal, or anything shaped like one. Listeners are always
 * removed when the wait ends.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
