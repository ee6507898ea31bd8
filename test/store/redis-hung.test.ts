// A hung Redis (paused with SIGSTOP: the socket stays open, nothing answers) must not stall
// callers: commands fail within the command timeout and /ready reports 503; once Redis
// answers again the same connections recover.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisConnectionOptions } from '../../src/store/redis/connection.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { specOf, uniquePrefix } from '../support/fixtures.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { status } }`;

describe('a hung Redis', () => {
  let redisServer: RedisServer;
  let pid: number;
  let paused = false;

  function pause(): void {
    process.kill(pid, 'SIGSTOP');
    paused = true;
  }
  function resume(): void {
    if (paused) process.kill(pid, 'SIGCONT');
    paused = false;
  }

  beforeAll(async () => {
    redisServer = await startRedisServer();
    const probe = new Redis(redisServer.url);
    const info = await probe.info('server');
    probe.disconnect();
    pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    expect(pid).toBeGreaterThan(0);
  });

  afterAll(async () => {
    resume();
    await redisServer.stop();
  });

  it('store calls fail with a timeout instead of waiting forever, and recover', async () => {
    const options = redisConnectionOptions();
    const redis = new Redis(redisServer.url, options.commands);
    const subscriber = new Redis(redisServer.url, options.subscriber);
    const store = createRedisStore({ redis, subscriber, prefix: uniquePrefix() });
    try {
      await store.listen({ event() {}, resync() {} });
      const spec = specOf();
      expect((await store.create(spec, { maxPending: 10, retentionMs: 60_000 })).kind).toBe('created');
      pause();
      await expect(store.get(spec.id)).rejects.toThrow(/timed out/i);
      await expect(store.create(specOf(), { maxPending: 10, retentionMs: 60_000 })).rejects.toThrow(
        /timed out/i,
      );
      expect(await store.ping()).toBe(false);
      resume();
      await vi.waitFor(async () => expect(await store.ping()).toBe(true), { timeout: 10_000, interval: 100 });
      expect((await store.get(spec.id))?.status).toBe('PENDING');
    } finally {
      resume();
      await store.close();
      redis.disconnect();
      subscriber.disconnect();
    }
  });

  it('the server answers INTERNAL and /ready is 503 while Redis is paused', async () => {
    let t: TestServer | null = null;
    try {
      t = await startServer({ store: 'redis', env: { INTERACTIONS_REDIS_URL: redisServer.url } });
      const url = await t.listen();
      expect((await fetch(`${url}/ready`)).status).toBe(200);
      pause();
      expect((await fetch(`${url}/ready`)).status).toBe(503);
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...auth('agent'), 'content-type': 'application/json' },
        body: JSON.stringify({ query: ASK, variables: { input: { text: 'Deploy?', format: 'CONFIRM' } } }),
      });
      const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
      expect(body.errors?.[0]?.extensions?.code).toBe('INTERNAL');
      resume();
      await vi.waitFor(async () => expect((await fetch(`${url}/ready`)).status).toBe(200), {
        timeout: 10_000,
        interval: 100,
      });
    } finally {
      resume();
      await t?.close();
    }
  });
});
