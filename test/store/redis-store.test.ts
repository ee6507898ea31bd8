import { inject } from 'vitest';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { redisPair, uniquePrefix } from '../support/fixtures.ts';
import { storeContract } from './contract.ts';
import { listingContract } from './listing-contract.ts';

storeContract('redis', async (o = {}) => {
  const conn = redisPair(inject('redisUrl'));
  const store = createRedisStore({
    ...o,
    redis: conn.redis,
    subscriber: conn.subscriber,
    prefix: uniquePrefix(),
  });
  return {
    store,
    async close() {
      await store.close();
      await conn.close();
    },
  };
});

listingContract('redis', async () => {
  const conn = redisPair(inject('redisUrl'));
  const store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix: uniquePrefix() });
  return {
    store,
    async close() {
      await store.close();
      await conn.close();
    },
  };
});
