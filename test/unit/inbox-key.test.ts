// The API key: from the `#key=` fragment or typed, kept in sessionStorage (memory when storage
// fails), never anywhere else.
import { describe, expect, it } from 'vitest';
import {
  createKeyStore,
  KEY_STORAGE_NAME,
  type KeyStorage,
  normalizeKey,
  takeKeyFromFragment,
} from '../../src/inbox/lib/key.ts';

describe('takeKeyFromFragment', () => {
  it('reads the key and keeps the rest of the fragment', () => {
    expect(takeKeyFromFragment('#key=abc123')).toEqual({ found: true, key: 'abc123', rest: '' });
    expect(takeKeyFromFragment('#view=history&key=a%2Bb%3D')).toEqual({
      found: true,
      key: 'a+b=',
      rest: 'view=history',
    });
    expect(takeKeyFromFragment('')).toEqual({ found: false, key: null, rest: '' });
    expect(takeKeyFromFragment('#other=1')).toEqual({ found: false, key: null, rest: 'other=1' });
  });

  it('finds an unusable key (so it is still removed from the address bar) but does not use it', () => {
    expect(takeKeyFromFragment('#key=')).toEqual({ found: true, key: null, rest: '' });
    expect(takeKeyFromFragment('#key=a%20b')).toEqual({ found: true, key: null, rest: '' });
    expect(takeKeyFromFragment('#key=%E0%A4%A')).toEqual({ found: true, key: null, rest: '' });
  });
});

describe('normalizeKey', () => {
  it('trims, and refuses blank keys and keys with whitespace inside', () => {
    expect(normalizeKey('  k-1  ')).toBe('k-1');
    expect(normalizeKey('   ')).toBeNull();
    expect(normalizeKey('a b')).toBeNull();
  });
});

function memoryStorage(): KeyStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

describe('createKeyStore', () => {
  it('keeps the key in the given (session) storage under one name', () => {
    const storage = memoryStorage();
    const keys = createKeyStore(storage);
    keys.set('secret-1');
    expect([...storage.items]).toEqual([[KEY_STORAGE_NAME, 'secret-1']]);
    expect(keys.get()).toBe('secret-1');
    keys.clear();
    expect(storage.items.size).toBe(0);
    expect(keys.get()).toBeNull();
  });

  it('falls back to memory when storage is missing or throws', () => {
    const none = createKeyStore(null);
    none.set('k');
    expect(none.get()).toBe('k');
    const broken: KeyStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    const keys = createKeyStore(broken);
    keys.set('k2');
    expect(keys.get()).toBe('k2');
    keys.clear();
    expect(keys.get()).toBeNull();
  });
});
