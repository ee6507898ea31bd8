// What a store announces, kept in order, with a wait for the first event that matches (already
// seen or still to come): the store suites' view of listen().
import type { QuestionStore, StoreEvent } from '../../src/store/types.ts';
import { deferred } from '../support/fixtures.ts';

export interface EventLog {
  events: StoreEvent[];
  nextEvent(pred: (e: StoreEvent) => boolean): Promise<StoreEvent>;
}

export async function recordEvents(store: QuestionStore): Promise<EventLog> {
  const events: StoreEvent[] = [];
  const waiters: { pred: (e: StoreEvent) => boolean; resolve(e: StoreEvent): void }[] = [];
  await store.listen({
    event(e) {
      events.push(e);
      for (const w of waiters) if (w.pred(e)) w.resolve(e);
    },
    resync() {},
  });
  return {
    events,
    nextEvent(pred) {
      const found = events.find(pred);
      if (found) return Promise.resolve(found);
      const d = deferred<StoreEvent>();
      waiters.push({ pred, resolve: d.resolve });
      return d.promise;
    },
  };
}
