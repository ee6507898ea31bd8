// The inbox's state outside React: the reducer runs exactly once per action (it changes the
// pending map in place, so React's StrictMode double call of a useReducer reducer would be
// wrong), and components read the latest state through useSyncExternalStore.
import { type InboxAction, type InboxState, inboxReducer, initialInboxState } from './inbox-state.ts';

export interface InboxStore {
  dispatch(action: InboxAction): void;
  getState(): InboxState;
  subscribe(listener: () => void): () => void;
}

export function createInboxStore(): InboxStore {
  let state = initialInboxState();
  const listeners = new Set<() => void>();
  return {
    dispatch(action) {
      const next = inboxReducer(state, action);
      if (next === state) return;
      state = next;
      for (const l of listeners) l();
    },
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
