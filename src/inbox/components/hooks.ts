// One shared clock for every "time left" on the page: a single interval while anything shows one.
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === undefined) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 1000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The current time, updated every second. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}

/** A React id usable inside other ids and as a form-field prefix (letters, digits, - and _ only). */
export function plainId(reactId: string): string {
  return `i${reactId.replace(/[^A-Za-z0-9_-]/g, '')}`;
}
