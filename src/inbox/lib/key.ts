// The API key of the signed-in person: taken from the `#key=` fragment the server prints at start
// (then removed from the address bar) or typed in, and kept in sessionStorage only: it lasts
// as long as the tab, is never written to localStorage and never rides in a query string.

export const KEY_STORAGE_NAME = 'tai-interactions.apiKey';

/** The part of the Web Storage interface the inbox uses (sessionStorage in the browser). */
export interface KeyStorage {
  getItem(name: string): string | null;
  setItem(name: string, value: string): void;
  removeItem(name: string): void;
}

/** A key as the server accepts it: surrounding whitespace ignored, none inside. Null otherwise. */
export function normalizeKey(raw: string): string | null {
  const key = raw.trim();
  return key === '' || /\s/.test(key) ? null : key;
}

export interface FragmentKey {
  /** Whether the fragment held a `key=` parameter at all (even an unusable one). */
  found: boolean;
  key: string | null;
  /** The fragment without the key (no leading `#`; empty when nothing else was there). */
  rest: string;
}

/** Reads `key=` from a URL fragment such as `#key=abc` or `#view=x&key=abc`. */
export function takeKeyFromFragment(hash: string): FragmentKey {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  if (body === '') return { found: false, key: null, rest: '' };
  let found = false;
  let key: string | null = null;
  const kept: string[] = [];
  for (const part of body.split('&')) {
    if (part === 'key' || part.startsWith('key=')) {
      found = true;
      let value = part.slice(4);
      try {
        value = decodeURIComponent(value.replace(/\+/g, ' '));
      } catch {
        value = '';
      }
      key = normalizeKey(value);
    } else if (part !== '') {
      kept.push(part);
    }
  }
  return { found, key, rest: kept.join('&') };
}

/** sessionStorage may be unavailable (disabled, sandboxed): then the key lives in memory only. */
export function createKeyStore(storage: KeyStorage | null) {
  let memory: string | null = null;
  return {
    get(): string | null {
      try {
        if (storage) return storage.getItem(KEY_STORAGE_NAME) ?? memory;
      } catch {
        // fall through to memory
      }
      return memory;
    },
    set(key: string): void {
      memory = key;
      try {
        storage?.setItem(KEY_STORAGE_NAME, key);
      } catch {
        // memory only
      }
    },
    clear(): void {
      memory = null;
      try {
        storage?.removeItem(KEY_STORAGE_NAME);
      } catch {
        // nothing stored
      }
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
