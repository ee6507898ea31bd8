// The names principals are shown by (API.md §19): `answeredBy` and the like stay stable ids in
// the record, the receipt and the audit log; where a name is known it is shown beside them.
// Names are kept in the store's people table (src/engine/people/people.ts): a signed-in person's at
// each sign-in, a channel user's when the channel reports one. Reads go through a small
// per-process cache, since one inbox page may name the same few people many times.
import type { People } from './people.ts';

export type NameOf = (principalId: string) => Promise<string | null>;

/** How long a name read from the store is reused by this process. */
export const NAME_CACHE_MS = 30_000;
const NAME_CACHE_MAX = 2000;

export function createNameCache(people: People, clock: () => number = Date.now): NameOf {
  const cache = new Map<string, { name: string | null; until: number }>();
  return async (principalId) => {
    const now = clock();
    const hit = cache.get(principalId);
    if (hit && hit.until > now) return hit.name;
    const name = (await people.names([principalId])).get(principalId) ?? null;
    // Oldest first out: a Map iterates in insertion order.
    if (cache.size >= NAME_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(principalId, { name, until: now + NAME_CACHE_MS });
    return name;
  };
}

/**
 * A name already written by this process is not written again for this long, unless it changed:
 * a channel reports the sender's name with every click, and each write is a store round trip
 * while the name is kept for NAME_KEEP_MS (people.ts) anyway.
 */
export const NAME_REWRITE_MS = 10 * 60_000;

/** `people.rememberName`, skipping a repeat of the name this process wrote within NAME_REWRITE_MS. */
export function createNameRemembering(
  people: Pick<People, 'rememberName'>,
  clock: () => number = Date.now,
): (principalId: string, name: string) => Promise<void> {
  const written = new Map<string, { name: string; until: number }>();
  return async (principalId, name) => {
    const now = clock();
    const last = written.get(principalId);
    if (last && last.name === name && last.until > now) return;
    await people.rememberName(principalId, name);
    // Re-inserted, so the Map's first key is the one written longest ago.
    written.delete(principalId);
    if (written.size >= NAME_CACHE_MAX) written.delete(written.keys().next().value as string);
    written.set(principalId, { name, until: now + NAME_REWRITE_MS });
  };
}
