// A live inbox feed for one principal: SNAPSHOT first, then one event per change. It starts
// listening before it reads the snapshot and keeps the set of ids the consumer knows, so a
// change that lands while it connects is neither lost nor shown twice. Its queue is
// bounded: a consumer that falls behind gets a fresh SNAPSHOT instead of unbounded memory.
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { StoreEventType } from '../store/types.ts';
import type { FeedEvent, Interactions } from './types.ts';

export interface FeedOptions {
  /** Most changes held for a slow consumer before it is resynced with a SNAPSHOT. */
  maxQueue?: number;
}

interface Change {
  type: StoreEventType;
  question: QuestionRecord;
}

export type Feed = AsyncIterableIterator<FeedEvent> & { return(): Promise<IteratorResult<FeedEvent>> };

export function openFeed(engine: Interactions, principal: Principal, opts: FeedOptions = {}): Feed {
  const maxQueue = opts.maxQueue ?? 1000;
  let queue: Change[] = [];
  let needSnapshot = true;
  let known = new Set<string>();
  let done = false;
  let wake: (() => void) | null = null;

  const poke = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };

  const unwatch = engine.watch(principal, {
    event(e) {
      if (queue.length >= maxQueue) {
        queue = [];
        needSnapshot = true;
      } else {
        queue.push(e);
      }
      poke();
    },
    resync() {
      queue = [];
      needSnapshot = true;
      poke();
    },
    close() {
      void finish();
    },
  });

  /** The next change worth sending, applying the known-ids rule; null when none is queued. */
  function nextChange(): FeedEvent | null {
    while (queue.length > 0) {
      const c = queue.shift()!;
      const id = c.question.id;
      if (c.type === 'ASKED') {
        if (known.has(id)) continue;
        known.add(id);
      } else {
        if (!known.has(id)) continue;
        known.delete(id);
      }
      return { type: c.type, questions: [c.question] };
    }
    return null;
  }

  async function finish(): Promise<IteratorResult<FeedEvent>> {
    done = true;
    unwatch();
    queue = [];
    poke();
    return { done: true, value: undefined };
  }

  const feed: Feed = {
    async next(): Promise<IteratorResult<FeedEvent>> {
      while (!done) {
        if (needSnapshot) {
          needSnapshot = false;
          // Changes arriving during this read stay queued and pass the known-ids rule.
          const questions = await engine.pending(principal);
          if (done) break;
          known = new Set(questions.map((q) => q.id));
          return { done: false, value: { type: 'SNAPSHOT', questions } };
        }
        const change = nextChange();
        if (change) return { done: false, value: change };
        await new Promise<void>((r) => {
          wake = r;
        });
      }
      return { done: true, value: undefined };
    },
    return: finish,
    async throw(err?: unknown): Promise<IteratorResult<FeedEvent>> {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return feed;
    },
  };
  return feed;
}
