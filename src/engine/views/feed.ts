// A live inbox feed for one principal: SNAPSHOT first, then one event per change. It starts
// listening before it reads the snapshot and keeps the set of ids the consumer knows, so a
// change that lands while it connects is neither lost nor shown twice. Its queue is
// bounded: a consumer that falls behind gets a fresh SNAPSHOT instead of unbounded memory.
// The backlog is read in batches as the consumer pulls (backlog.ts): the SNAPSHOT carries the
// first batch, each further question follows as an ASKED event marked `backlog`, and `more`
// says whether another part follows, so a slow reader holds the server to about one batch.
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { StoreEventType } from '../../store/types.ts';
import type { FeedEvent, Interactions } from '../types.ts';

export interface FeedOptions {
  /** Most changes held for a slow consumer before it is resynced with a SNAPSHOT. */
  maxQueue?: number;
  /** Bytes of questions read per backlog batch (default BACKLOG_BATCH_BYTES). */
  batchBytes?: number;
}

/** The backlog being sent: the batch in hand, how far it was sent, and the reader of the rest. */
interface Backlog {
  reader: AsyncGenerator<QuestionRecord[]>;
  batch: QuestionRecord[];
  /** The next question of `batch` to send (an index, not shift(): a batch holds thousands). */
  at: number;
  ended: boolean;
}

const inHand = (b: Backlog): number => b.batch.length - b.at;

interface Change {
  type: StoreEventType;
  question: QuestionRecord;
}

/**
 * A live change as a feed event: one object per store announcement, shared by every feed of
 * this process, so a surface can serialize it once for all its subscribers (graphql/shared-results.ts).
 */
const changeEvents = new WeakMap<Change, FeedEvent>();
function changeEventOf(c: Change): FeedEvent {
  let e = changeEvents.get(c);
  if (!e) {
    e = { type: c.type, questions: [c.question], more: false };
    changeEvents.set(c, e);
  }
  return e;
}

export type Feed = AsyncIterableIterator<FeedEvent> & {
  return(): Promise<IteratorResult<FeedEvent>>;
  /**
   * The next event when it can be had at once, without a read: a queued live change, or a
   * backlog part whose batch is in hand and holds another question after it. Null when nothing
   * is queued (see `onReady`); undefined when the next event needs `next()` (a SNAPSHOT, a
   * backlog part that needs a read to know `more`) or the feed is over. Lets a consumer that
   * writes synchronously skip the promise steps of `next()` (thousands of them for a large
   * backlog); it must not call this while one of its `next()` is in flight.
   */
  takeNow(): FeedEvent | null | undefined;
  /**
   * Up to `max` questions of the backlog that the next parts will carry, in order, from the
   * batch in hand (nothing is read for it; empty outside a backlog). Lets a consumer prepare
   * their encoding in one go rather than one question at a time.
   */
  upcoming(max: number): readonly QuestionRecord[];
  /** `ready` is called once, synchronously, when something arrives (a change, a resync, the end). */
  onReady(ready: (() => void) | null): void;
};

export function openFeed(engine: Interactions, principal: Principal, opts: FeedOptions = {}): Feed {
  const maxQueue = opts.maxQueue ?? 1000;
  let queue: Change[] = [];
  let needSnapshot = true;
  let known = new Set<string>();
  let done = false;
  let wake: (() => void) | null = null;
  let backlog: Backlog | null = null;
  let ready: (() => void) | null = null;

  const poke = (): void => {
    const w = wake;
    wake = null;
    w?.();
    const r = ready;
    ready = null;
    r?.();
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
      } else if (c.type === 'UPDATED') {
        // A change of a question this feed holds; one it does not hold arrives with its ASKED.
        if (!known.has(id)) continue;
      } else {
        if (!known.has(id)) continue;
        known.delete(id);
      }
      return changeEventOf(c);
    }
    return null;
  }

  /** Reads the next batch when the one in hand is used up (the look-ahead that sets `more`). */
  async function refill(b: Backlog): Promise<void> {
    while (inHand(b) === 0 && !b.ended) {
      const r = await b.reader.next();
      if (r.done) b.ended = true;
      else {
        b.batch = r.value;
        b.at = 0;
      }
    }
  }

  async function startBacklog(): Promise<FeedEvent> {
    void backlog?.reader.return(undefined);
    const b: Backlog = { reader: engine.backlog(principal, opts.batchBytes), batch: [], at: 0, ended: false };
    backlog = b;
    // Changes arriving during these reads stay queued and pass the known-ids rule.
    await refill(b);
    const questions = b.batch;
    b.batch = [];
    await refill(b);
    known = new Set(questions.map((q) => q.id));
    const more = inHand(b) > 0;
    if (!more) backlog = null;
    return { type: 'SNAPSHOT', questions, more };
  }

  async function nextOfBacklog(b: Backlog): Promise<FeedEvent> {
    const q = b.batch[b.at++]!;
    await refill(b);
    known.add(q.id);
    const more = inHand(b) > 0;
    if (!more) backlog = null;
    return { type: 'ASKED', questions: [q], more, backlog: true };
  }

  /**
   * The next backlog part when the batch in hand holds another question after it (so `more` is
   * true without a read); undefined when the next part needs next() (its batch ends there).
   */
  function backlogPartNow(b: Backlog): FeedEvent | undefined {
    if (inHand(b) < 2) return undefined;
    const q = b.batch[b.at++]!;
    known.add(q.id);
    return { type: 'ASKED', questions: [q], more: true, backlog: true };
  }

  async function finish(): Promise<IteratorResult<FeedEvent>> {
    done = true;
    unwatch();
    queue = [];
    void backlog?.reader.return(undefined);
    backlog = null;
    poke();
    return { done: true, value: undefined };
  }

  const feed: Feed = {
    async next(): Promise<IteratorResult<FeedEvent>> {
      while (!done) {
        if (needSnapshot) {
          needSnapshot = false;
          const snapshot = await startBacklog();
          if (done) break;
          return { done: false, value: snapshot };
        }
        if (backlog) {
          const part = await nextOfBacklog(backlog);
          if (done) break;
          return { done: false, value: part };
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
    takeNow(): FeedEvent | null | undefined {
      if (done || needSnapshot) return undefined;
      if (backlog) return backlogPartNow(backlog);
      return nextChange();
    },
    upcoming(max: number): readonly QuestionRecord[] {
      const b = backlog;
      return b && !done ? b.batch.slice(b.at, b.at + max) : [];
    },
    onReady(r) {
      ready = r;
    },
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
