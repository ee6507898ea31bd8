// Short links on both stores: a token hash names its URL while the question lives, and nothing
// once the question is gone; unknown hashes read as nothing.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { redisPair, specOf, uniquePrefix } from '../support/fixtures.ts';

const opts = { maxPending: 1000, retentionMs: 60_000 };
const LONG = `https://pay.example/approve?${'a'.repeat(8000)}`;
const HASH = 'a'.repeat(64);

for (const kind of ['memory', 'redis'] as const) {
  describe(`short links (${kind})`, () => {
    let store: QuestionStore;
    let close: () => Promise<void>;
    let now = Date.now();
    /** Makes question `id` gone, as its record's expiry would. */
    let expire: (id: string) => Promise<void>;
    /** Milliseconds left on the link and on its question's record (Redis only). */
    let ttls: ((id: string) => Promise<[number, number]>) | null = null;

    beforeEach(async () => {
      now = Date.now();
      if (kind === 'memory') {
        let clock = now;
        store = createMemoryStore({ clock: () => clock });
        close = () => store.close();
        // Past the question's deadline and retention: the record is gone, as in production.
        expire = async () => {
          clock = now + 365 * 24 * 3600_000;
        };
        ttls = null;
      } else {
        const conn = redisPair(inject('redisUrl'));
        const prefix = uniquePrefix();
        store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix });
        close = async () => {
          await store.close();
          await conn.close();
        };
        expire = async (id) => {
          await conn.redis.del(`${prefix}q:${id}`);
        };
        // The question's first: read later, the link's can only have shrunk further.
        ttls = async (id) => {
          const question = await conn.redis.pttl(`${prefix}q:${id}`);
          return [await conn.redis.pttl(`${prefix}link:${HASH}`), question];
        };
      }
    });
    afterEach(() => close());

    async function ask(): Promise<string> {
      const spec = specOf({ channel: 'ops-slack', createdAt: now, timeoutAt: now + 60_000 });
      expect((await store.create(spec, opts)).kind).toBe('created');
      return spec.id;
    }

    it('a saved link reads back by its token hash; an unknown hash is nothing', async () => {
      const id = await ask();
      expect(await store.links.get(HASH)).toBeNull();
      expect(await store.links.save(id, HASH, LONG)).toBe(true);
      expect(await store.links.get(HASH)).toBe(LONG);
      expect(await store.links.get('b'.repeat(64))).toBeNull();
      if (ttls) {
        // It expires no later than the question's record, and does expire.
        const [link, question] = await ttls(id);
        expect(link).toBeGreaterThan(0);
        expect(link).toBeLessThanOrEqual(question);
      }
    });

    it('a link ends with its question, and none is saved for a question that is gone', async () => {
      const id = await ask();
      expect(await store.links.save(id, HASH, LONG)).toBe(true);
      await expire(id);
      expect(await store.links.get(HASH)).toBeNull();
      expect(await store.links.save(id, HASH, LONG)).toBe(false);
      expect(await store.links.save('no-such-question', HASH, LONG)).toBe(false);
      expect(await store.links.get(HASH)).toBeNull();
    });
  });
}
