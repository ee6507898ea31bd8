// One signed-in key's live feed and the inbox state it fills, outside React, so that sign-in can
// open the feed beside the viewer check instead of after it: the page used to ask for the feed
// only once the check had answered and the inbox had mounted (0.8–1.1 s after navigation under
// load; bench/README.md, "The inbox with 10,000 pending"). The page shows the inbox only once the
// check accepts the key; a key the check refuses (or cannot check) has its feed closed, and a
// feed refused on its own (401) stays closed and tells the inbox when it mounts.
import type { Transport } from './api.ts';
import { type FeedStatus, openFeed } from './feed.ts';
import { createInboxStore, type InboxStore } from './inbox-store.ts';

export interface FeedView {
  status: FeedStatus;
  /** The last problem the feed reported (null once a SNAPSHOT arrives again). */
  problem: string | null;
}

export interface FeedSession {
  readonly api: Transport;
  /** The inbox state the feed's events go to. */
  readonly store: InboxStore;
  /** Opens the feed unless it is open or was refused; closing and opening again re-syncs it. */
  open(): void;
  close(): void;
  /** Whether the feed is open now (for tests and for closing what sign-in opened). */
  isOpen(): boolean;
  view(): FeedView;
  subscribe(listener: () => void): () => void;
  /** Called once when the key is refused; at once if it already was. Returns the unregister. */
  onRefused(listener: () => void): () => void;
}

/** Tests give their own feed opener and store. */
export interface FeedSessionOptions {
  open?: typeof openFeed;
  store?: InboxStore;
}

export function createFeedSession(api: Transport, options: FeedSessionOptions = {}): FeedSession {
  const open = options.open ?? openFeed;
  const store = options.store ?? createInboxStore();
  let view: FeedView = { status: 'connecting', problem: null };
  const listeners = new Set<() => void>();
  let stop: (() => void) | null = null;
  let refused = false;
  let refusedListener: (() => void) | null = null;

  const set = (next: Partial<FeedView>): void => {
    view = { ...view, ...next };
    for (const l of listeners) l();
  };

  return {
    api,
    store,
    open() {
      if (stop || refused) return;
      stop = open(api, {
        event: (event) => store.dispatch({ type: 'feed', event }),
        status: (status) => set({ status }),
        problem: (problem) => set({ problem }),
        unauthorized: () => {
          // openFeed has stopped itself.
          refused = true;
          stop = null;
          refusedListener?.();
        },
      });
    },
    close() {
      stop?.();
      stop = null;
    },
    isOpen: () => stop !== null,
    view: () => view,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onRefused(listener) {
      if (refused) {
        listener();
        return () => {};
      }
      refusedListener = listener;
      return () => {
        if (refusedListener === listener) refusedListener = null;
      };
    },
  };
}
