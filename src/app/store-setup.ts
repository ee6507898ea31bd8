// Opens the question store the settings name: Redis (two connections, checked and indexed
// before anything is served) or, without INTERACTIONS_REDIS_URL, the in-memory store.
import type pino from 'pino';
import { createMemoryStore } from '../store/memory-store.ts';
import type { RedisClient } from '../store/redis/client.ts';
import { connectAll, createRedisConnections, type RedisTarget } from '../store/redis/connection.ts';
import { createRedisStore } from '../store/redis/redis-store.ts';
import type { QuestionStore } from '../store/types.ts';
import type { Config } from './config.ts';
import { StartupError } from './startup-error.ts';

/** What the composition root closes, in reverse order. */
export type Closers = (() => Promise<void> | void)[];

/** The oldest Redis the store runs on (its scripts use 7.0 commands). */
export const MIN_REDIS = [7, 0] as const;

export function redisTarget(config: Config, url: string): RedisTarget {
  if (config.redisMode !== 'sentinel') return { mode: config.redisMode, url };
  return { mode: 'sentinel', url, sentinels: config.redisSentinels, name: config.redisSentinelName ?? '' };
}

async function checkRedisVersion(redis: RedisClient): Promise<void> {
  const info = await redis.info('server');
  const version = /redis_version:(\d+)\.(\d+)/.exec(info);
  const [major, minor] = version ? [Number(version[1]), Number(version[2])] : [0, 0];
  if (major < MIN_REDIS[0]! || (major === MIN_REDIS[0] && minor < MIN_REDIS[1]!)) {
    throw new StartupError(
      `INTERACTIONS_REDIS_URL: Redis ${MIN_REDIS.join('.')} or newer is required (found ${major}.${minor})`,
    );
  }
}

/**
 * The store, and the command connection (null for the memory store) that the callback door's
 * rate limit shares. Pushes what must be closed onto `closers`.
 */
export async function openStore(
  config: Config,
  logger: pino.Logger,
  closers: Closers,
): Promise<{ store: QuestionStore; redis: RedisClient | null }> {
  if (!config.redisUrl) {
    const store = createMemoryStore();
    logger.warn(
      'INTERACTIONS_REDIS_URL is not set: using the in-memory store (one process; lost on restart)',
    );
    closers.push(() => store.close());
    return { store, redis: null };
  }
  const { redis, subscriber } = createRedisConnections(redisTarget(config, config.redisUrl));
  for (const c of [redis, subscriber])
    c.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  closers.push(() => {
    redis.disconnect();
    subscriber.disconnect();
  });
  try {
    await connectAll([redis, subscriber]);
  } catch {
    throw new StartupError(
      config.redisMode === 'sentinel'
        ? 'INTERACTIONS_REDIS_SENTINELS: cannot connect to Redis through the sentinels'
        : 'INTERACTIONS_REDIS_URL: cannot connect to Redis',
    );
  }
  await checkRedisVersion(redis);
  const store = createRedisStore({
    redis,
    subscriber,
    prefix: config.keyPrefix,
    waitReplicas: config.redisWaitReplicas,
  });
  closers.push(() => store.close());
  // Questions stored by an earlier version get their listing indexes (once, in batches).
  await store.ensureIndexes();
  return { store, redis };
}
