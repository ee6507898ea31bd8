// The people store in memory (contract: people.ts). Expired entries are dropped when read and
// swept when written, so an idle server holds no dead sessions for long.
import type { MemoryAudit } from './memory-audit.ts';
import type { PeopleAudit, PeopleStore } from './people.ts';

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * `append` writes an audited write's entry inside the same synchronous step (claims, preferences);
 * without it (a people store on its own) those entries are not kept.
 */
export function createMemoryPeople(clock: () => number, append?: MemoryAudit['append']): PeopleStore {
  const audit = (a: PeopleAudit): void => {
    append?.(a.type, a.questionId, a.actor, a.via, a.detail, a.at);
  };
  const values = new Map<string, Entry<string>>();
  const maps = new Map<string, Entry<Map<string, string>>>();

  function live<T>(table: Map<string, Entry<T>>, key: string, now: number): Entry<T> | undefined {
    const entry = table.get(key);
    if (entry && entry.expiresAt <= now) {
      table.delete(key);
      return undefined;
    }
    return entry;
  }

  function sweep(): void {
    const now = clock();
    for (const table of [values, maps] as Map<string, Entry<unknown>>[]) {
      for (const [key, entry] of table) if (entry.expiresAt <= now) table.delete(key);
    }
  }

  let writes = 0;
  const wrote = (): void => {
    // Every thousandth write: bounded work, amortised.
    writes += 1;
    if (writes % 1000 === 0) sweep();
  };

  return {
    async put(key, value, expiresAt) {
      values.set(key, { value, expiresAt });
      wrote();
    },
    async get(key, now) {
      return live(values, key, now)?.value ?? null;
    },
    async putAudited(key, value, expiresAt, a) {
      values.set(key, { value, expiresAt });
      audit(a);
      wrote();
    },
    async deleteAudited(key, expected, a) {
      if (live(values, key, a.at)?.value !== expected) return false;
      values.delete(key);
      audit(a);
      return true;
    },
    async take(key, now) {
      const entry = live(values, key, now);
      values.delete(key);
      return entry?.value ?? null;
    },
    async delete(key) {
      const entry = live(values, key, clock());
      values.delete(key);
      return entry !== undefined;
    },
    async mapSet(owner, field, value, maxFields, expiresAt) {
      const entry = live(maps, owner, clock());
      const map = entry?.value ?? new Map<string, string>();
      if (!map.has(field) && map.size >= maxFields) return 'full';
      map.set(field, value);
      maps.set(owner, { value: map, expiresAt: Math.max(expiresAt, entry?.expiresAt ?? 0) });
      wrote();
      return 'set';
    },
    async mapDelete(owner, field) {
      const map = live(maps, owner, clock())?.value;
      if (!map?.delete(field)) return false;
      if (map.size === 0) maps.delete(owner);
      return true;
    },
    async mapAll(owner, now) {
      const map = live(maps, owner, now)?.value;
      return Object.freeze(Object.fromEntries(map ?? []));
    },
  };
}
