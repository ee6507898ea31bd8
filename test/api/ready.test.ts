// /ready follows the store: 200 while Redis answers, 503 once it does not, /health stays 200.
import { describe, expect, it } from 'vitest';
import { startRedisServer } from '../support/redis-server.ts';
import { startServer } from '../support/server.ts';

describe('/ready', () => {
  it('answers 503 when Redis goes away, while /health stays 200', async () => {
    const redis = await startRedisServer();
    const t = await startServer({ store: 'redis', env: { INTERACTIONS_REDIS_URL: redis.url } });
    try {
      expect((await t.server.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
      await redis.stop();
      const r = await t.server.inject({ method: 'GET', url: '/ready' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({ status: 'store unreachable' });
      expect((await t.server.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('refuses to start when Redis cannot be reached, with one line naming the setting', async () => {
    const redis = await startRedisServer();
    await redis.stop();
    await expect(startServer({ store: 'redis', env: { INTERACTIONS_REDIS_URL: redis.url } })).rejects.toThrow(
      /^INTERACTIONS_REDIS_URL: /,
    );
  });
});
