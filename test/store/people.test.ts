// The people table on both stores (API.md §19): values with their expiry, the one-step take,
// the capped small maps; and, over it, sessions that expire and end, and the names they keep.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createPeople } from '../../src/engine/people/people.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { redisPair, uniquePrefix } from '../support/fixtures.ts';

const ADA = { id: 'oidc:ada', name: 'Ada Lovelace', roles: ['admin'] as const, restricted: false };

for (const kind of ['memory', 'redis'] as const) {
  describe(`people (${kind})`, () => {
    let store: QuestionStore;
    let close: () => Promise<void>;
    let clock = Date.now();

    beforeEach(async () => {
      clock = Date.now();
      if (kind === 'memory') {
        store = createMemoryStore({ clock: () => clock });
        close = () => store.close();
      } else {
        const conn = redisPair(inject('redisUrl'));
        store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix: uniquePrefix() });
        close = async () => {
          await store.close();
          await conn.close();
        };
      }
    });
    afterEach(() => close());

    it('a value reads back until taken; take gives it to exactly one of two callers', async () => {
      const p = store.people;
      await p.put('login:x', 'v1', clock + 60_000);
      expect(await p.get('login:x', clock)).toBe('v1');
      const [one, two] = await Promise.all([p.take('login:x', clock), p.take('login:x', clock)]);
      expect([one, two].sort()).toEqual(['v1', null].sort());
      expect(await p.get('login:x', clock)).toBeNull();
      expect(await p.delete('login:x')).toBe(false);
    });

    it('a map holds at most maxFields fields; an existing field may be replaced when full', async () => {
      const p = store.people;
      const until = clock + 60_000;
      expect(await p.mapSet('push:ada', 'a', '1', 2, until)).toBe('set');
      expect(await p.mapSet('push:ada', 'b', '2', 2, until)).toBe('set');
      expect(await p.mapSet('push:ada', 'c', '3', 2, until)).toBe('full');
      expect(await p.mapSet('push:ada', 'b', '2b', 2, until)).toBe('set');
      expect(await p.mapAll('push:ada', clock)).toEqual({ a: '1', b: '2b' });
      expect(await p.mapDelete('push:ada', 'a')).toBe(true);
      expect(await p.mapDelete('push:ada', 'a')).toBe(false);
      expect(await p.mapAll('push:ada', clock)).toEqual({ b: '2b' });
      expect(await p.mapAll('push:nobody', clock)).toEqual({});
    });

    it('a session lives until its expiry and not a millisecond past it; closing ends it', async () => {
      const people = createPeople(store.people, () => clock);
      const expiresAt = clock + 1000;
      const id = await people.openSession({ ...ADA, roles: ['admin'] }, expiresAt);
      expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await people.session(id, expiresAt - 1))?.principal).toEqual({ ...ADA, roles: ['admin'] });
      expect(await people.closeSession(id)).toBe(true);
      expect(await people.session(id, clock)).toBeNull();
      expect(await people.closeSession(id)).toBe(false);
      const other = await people.openSession({ ...ADA, roles: ['admin'] }, expiresAt);
      expect(await people.session(other, expiresAt - 1)).not.toBeNull();
      expect(await people.session(other, expiresAt)).toBeNull();
      // The store never holds the session id itself.
      expect(await store.people.get(`session:${id}`, clock)).toBeNull();
    });

    it('remembers the name a session was opened with, cleaned and bounded', async () => {
      const people = createPeople(store.people, () => clock);
      await people.openSession({ ...ADA, roles: ['admin'] }, clock + 60_000);
      await people.rememberName('slack:U1', ` Grace\n\tHopper\u0007 ${'x'.repeat(300)}`);
      const names = await people.names(['oidc:ada', 'slack:U1', 'unknown']);
      expect(names.get('oidc:ada')).toBe('Ada Lovelace');
      expect(names.get('slack:U1')).toMatch(/^Grace Hopper x+$/);
      expect([...(names.get('slack:U1') ?? '')]).toHaveLength(100);
      expect(names.has('unknown')).toBe(false);
    });
  });
}
