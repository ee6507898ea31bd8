// The inbox's state outside React: the reducer runs exactly once per action (it changes the
// pending map in place, so React's StrictMode double call of a useReducer reducer would be
// wrong), and components read the latest state through useSyncExternalStore.
//
// Feed events are applied at once but shown once per frame. A backlog larger than one SNAPSHOT
// part arrives as thousands of ASKED events, one question each; telling React after each one made
// the page re-arrange the whole list (filter, sort, fold, facets) thousands of times, and 10,000
// pending took over half a minute to be counted. Now every event that arrives within a frame is
// one render. The page's own actions (an answer, a failure, a dismissal) are shown at once, and
// carry any feed events still waiting with them.
import { type InboxAction, type InboxState, inboxReducer, initialInboxState } from './inbox-state.ts';

export interface InboxStore {
  dispatch(action: InboxAction): void;
  getState(): InboxState;
  subscribe(listener: () => void): () => void;
}

/** Runs `flush` before the next frame is painted; returns the function that cancels it. */
export type FrameScheduler = (flush: () => void) => () => void;

/**
 * The next animation frame, or a timer when no frame comes first: a hidden tab gets no frames,
 * and its title (the pending count) must still follow the feed.
 */
const FALLBACK_MS = 100;
export const nextFrame: FrameScheduler = (flush) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    flush();
  };
  const frame = requestAnimationFrame(once);
  const timer = setTimeout(once, FALLBACK_MS);
  return () => {
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
};

export function createInboxStore(schedule: FrameScheduler = nextFrame): InboxStore {
  let state = initialInboxState();
  const listeners = new Set<() => void>();
  /** Cancels the frame that will show feed events already applied; null when none wait. */
  let waiting: (() => void) | null = null;

  function notify(): void {
    waiting?.();
    waiting = null;
    for (const l of listeners) l();
  }

  return {
    dispatch(action) {
      const next = inboxReducer(state, action);
      if (next === state) return;
      state = next;
      if (action.type !== 'feed') notify();
      else
        waiting ??= schedule(() => {
          waiting = null;
          notify();
        });
    },
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
