// How the server's two Redis connections behave when Redis is slow, gone or hung. Without a
// command timeout a paused Redis (SIGSTOP, a stuck host) keeps the socket open and every
// call waits forever; with it, calls fail within seconds while /ready reports 503, and the
// same connection recovers when Redis answers again.
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisClient } from './client.ts';

/** Longest one command may take before it fails. */
export const REDIS_COMMAND_TIMEOUT_MS = 3000;

// Reconnect quickly at first, then every 2 s: the store is unusable until it is back.
const backoff = (attempt: number): number => Math.min(attempt * 200, 2000);

const shared: RedisOptions = {
  connectTimeout: 5000,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  lazyConnect: true,
  retryStrategy: backoff,
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

/** Where the data lives: one server, a Cluster, or a primary that Sentinel names. */
export type RedisTarget =
  | { mode: 'standalone'; url: string }
  | { mode: 'cluster'; url: string }
  | {
      mode: 'sentinel';
      /** Credentials, TLS (rediss:) and database of the data nodes; its host is not used. */
      url: string;
      sentinels: readonly { host: string; port: number }[];
      name: string;
    };

/** The data nodes' credentials, TLS and database from a redis:// or rediss:// URL. */
function nodeAuth(raw: string): RedisOptions {
  const url = new URL(raw);
  const db = Number(url.pathname.slice(1) || '0');
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
  };
}

function connect(target: RedisTarget, options: RedisOptions): RedisClient {
  switch (target.mode) {
    case 'standalone':
      return new Redis(target.url, options);
    case 'cluster': {
      const url = new URL(target.url);
      const { db: _db, ...auth } = nodeAuth(target.url);
      return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], {
        lazyConnect: true,
        clusterRetryStrategy: backoff,
        redisOptions: { ...options, ...auth, lazyConnect: false },
      });
    }
    case 'sentinel': {
      const auth = nodeAuth(target.url);
      return new Redis({
        ...options,
        ...auth,
        ...(auth.tls ? { enableTLSForSentinelMode: true } : {}),
        sentinels: target.sentinels.map((s) => ({ ...s })),
        name: target.name,
        sentinelRetryStrategy: backoff,
        // Listen for +switch-master, so a failover is followed at once, not on the next error.
        failoverDetector: true,
      });
    }
  }
}

/** The server's command and subscriber connections (not yet connected: call connect()). */
export function createRedisConnections(target: RedisTarget): { redis: RedisClient; subscriber: RedisClient } {
  const o = redisConnectionOptions();
  return { redis: connect(target, o.commands), subscriber: connect(target, o.subscriber) };
}

/** Longest the first connection may take at start before the server gives up. */
export const REDIS_STARTUP_TIMEOUT_MS = 10_000;

/**
 * Connects both clients, or rejects: at the first failure on one server or a Cluster, after
 * REDIS_STARTUP_TIMEOUT_MS through Sentinel (which keeps asking the sentinels rather than fail).
 */
export async function connectAll(
  clients: readonly RedisClient[],
  timeoutMs = REDIS_STARTUP_TIMEOUT_MS,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('Redis connect timed out')), timeoutMs);
  });
  try {
    await Promise.race([Promise.all(clients.map((c) => c.connect())), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
