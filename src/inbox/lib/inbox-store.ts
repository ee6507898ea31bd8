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
//
// While the rest of a large backlog streams in after the first part is on screen, even once per
// frame was too often: each render re-arranged the whole list (an O(n log n) sort of up to
// 10,000), re-placed every row, and mounted and measured a fresh screenful of cards as newer
// questions arrived on top, so the stream took four seconds of main-thread time to read. Those
// parts are shown every BACKLOG_MS instead; the first part and the last are shown at the next frame.
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

/** How often the middle parts of a streaming backlog are shown. */
export const BACKLOG_MS = 250;
export const afterBacklogPause: FrameScheduler = (flush) => {
  const timer = setTimeout(flush, BACKLOG_MS);
  return () => clearTimeout(timer);
};

/**
 * `schedule` shows feed events; `backlogSchedule` shows the parts of a backlog that arrive after
 * the list is on screen and before its last part (the same as `schedule` unless given).
 */
export function createInboxStore(
  schedule: FrameScheduler = nextFrame,
  backlogSchedule: FrameScheduler = schedule === nextFrame ? afterBacklogPause : schedule,
): InboxStore {
  let state = initialInboxState();
  const listeners = new Set<() => void>();
  /** Cancels the flush that will show feed events already applied; null when none wait. */
  let waiting: (() => void) | null = null;
  /** The waiting flush is the slower backlog one. */
  let waitingBacklog = false;

  function notify(): void {
    waiting?.();
    waiting = null;
    for (const l of listeners) l();
  }

  function later(scheduler: FrameScheduler): () => void {
    return scheduler(() => {
      waiting = null;
      notify();
    });
  }

  return {
    dispatch(action) {
      const prev = state;
      const next = inboxReducer(state, action);
      if (next === state) return;
      state = next;
      if (action.type !== 'feed') {
        notify();
        return;
      }
      const midBacklog = prev.synced && prev.loadingMore && next.loadingMore;
      if (midBacklog) {
        if (!waiting) {
          waiting = later(backlogSchedule);
          waitingBacklog = true;
        }
      } else if (!waiting || waitingBacklog) {
        // Anything but a middle part (the last part, a live change) is shown at the next frame.
        waiting?.();
        waiting = later(schedule);
        waitingBacklog = false;
      }
    },
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
