// How the server's two Redis connections behave when Redis is slow, gone or hung. Without a
// command timeout a paused Redis (SIGSTOP, a stuck host) keeps the socket open and every
// call waits forever; with it, calls fail within seconds while /ready reports 503, and the
// same connection recovers when Redis answers again.
import type { RedisOptions } from 'ioredis';

/** Longest one command may take before it fails. */
export const REDIS_COMMAND_TIMEOUT_MS = 3000;

const shared: RedisOptions = {
  connectTimeout: 5000,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  lazyConnect: true,
  // Reconnect quickly at first, then every 2 s: the store is unusable until it is back.
  retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
};

export interface RedisConnectionOptions {
  /** Commands and scripts: fail a command after a few reconnect attempts rather than queue it. */
  commands: RedisOptions;
  /** SUBSCRIBE only: it resubscribes after every reconnect, so it never gives up. */
  subscriber: RedisOptions;
}

export function redisConnectionOptions(): RedisConnectionOptions {
  return {
    commands: { ...shared, maxRetriesPerRequest: 3 },
    subscriber: { ...shared, maxRetriesPerRequest: null },
  };
}
