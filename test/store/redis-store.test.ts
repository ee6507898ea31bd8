import { inject } from 'vitest';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { redisPair, uniquePrefix } from '../support/fixtures.ts';
import { storeContract } from './contract.ts';

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
