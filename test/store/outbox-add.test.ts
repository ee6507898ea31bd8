// The outbox's `add` on both stores (src/store/outbox-port.ts): items enqueued outside a claim,
// due at once; an item already there (due or leased) is left as it is; bad input is refused
// before anything is written. And the delivery target of a device's push is its push service.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { deliveryTargetOf, MAX_ADD_BATCH } from '../../src/store/outbox.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { redisPair, uniquePrefix } from '../support/fixtures.ts';

for (const kind of ['memory', 'redis'] as const) {
  describe(`outbox add (${kind})`, () => {
    let store: QuestionStore;
    let close: () => Promise<void>;
    const now = Date.now();

    beforeEach(async () => {
      if (kind === 'memory') {
        store = createMemoryStore();
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

    it('adds what is not there yet; a leased item keeps its lease', async () => {
      expect(await store.outbox.add('q1', ['push:a@x', 'push:b@x'], now)).toBe(2);
      const [leased] = await store.outbox.leaseDue(now, 1, 60_000, 'w');
      expect(leased).toMatchObject({ questionId: 'q1', attempt: 0, dueAt: now });
      expect(await store.outbox.add('q1', ['push:a@x', 'push:b@x', 'push:c@x'], now)).toBe(1);
      expect(await store.outbox.ack(leased!.id, leased!.leaseToken)).toBe(true);
      expect((await store.outbox.stats(now)).items).toBe(2);
      expect(await store.outbox.add('q1', [], now)).toBe(0);
    });

    it(`refuses more than ${MAX_ADD_BATCH} targets, or a bad one, writing nothing`, async () => {
      const many = Array.from({ length: MAX_ADD_BATCH + 1 }, (_, i) => `push:${i}@x`);
      await expect(store.outbox.add('q1', many, now)).rejects.toThrow(RangeError);
      await expect(store.outbox.add('q1', ['has space'], now)).rejects.toThrow(RangeError);
      await expect(store.outbox.add('q1', ['x'.repeat(201)], now)).rejects.toThrow(RangeError);
      expect((await store.outbox.stats(now)).items).toBe(0);
      expect(await store.outbox.add('q1', many.slice(0, MAX_ADD_BATCH), now)).toBe(MAX_ADD_BATCH);
    });
  });
}

it('a push to one device is delivered to its push service; other targets are themselves', () => {
  expect(deliveryTargetOf({ target: 'push:aAAA.BBBB@https://fcm.googleapis.com' })).toBe(
    'push:https://fcm.googleapis.com',
  );
  expect(deliveryTargetOf({ target: 'push' })).toBe('push');
  expect(deliveryTargetOf({ target: 'webhook:a@b' })).toBe('webhook:a@b');
});
