// The callback doors' shared rate-limit counter in Redis, for @fastify/rate-limit. Its own Redis
// store runs a Lua script per request; a script call costs Redis several times what plain
// commands do (see bench/README.md, "Callback-door answers per second"), and this counter is
// paid by every request of a public door. MULTI INCR / PEXPIRE NX / PTTL is the same fixed
// window, atomic, in one round trip of three cheap commands (PEXPIRE NX needs Redis 7.0).
import { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor, normalizeIP } from '@fastify/rate-limit';
import type { Cluster, Redis } from 'ioredis';

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];

/** A store class bound to `redis` and the counters' key namespace. */
export function redisRateLimitStore(redis: Redis | Cluster, nameSpace: string): FastifyRateLimitStoreCtor {
  class MultiRedisStore implements FastifyRateLimitStore {
    private readonly keyPrefix: string;

    /** The plugin passes its options; child() passes a route's key prefix. */
    constructor(_options?: unknown, keyPrefix = nameSpace) {
      this.keyPrefix = keyPrefix;
    }

    incr(key: string, callback: Callback, timeWindow: number): void {
      const k = this.keyPrefix + key;
      redis
        .multi()
        .incr(k)
        .pexpire(k, timeWindow, 'NX')
        .pttl(k)
        .exec()
        .then((replies) => {
          const failed = replies?.find(([err]) => err)?.[0];
          if (!replies || failed) return callback(failed ?? new Error('rate-limit counter: no reply'));
          callback(null, { current: Number(replies[0]![1]), ttl: Math.max(Number(replies[2]![1]), 0) });
        }, callback);
    }

    /** Per-route limits (unused here) count apart, keyed as the plugin's own stores key them. */
    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      const { routeInfo } = routeOptions as unknown as { routeInfo?: { method?: string; url?: string } };
      const route = routeInfo ?? {};
      return new MultiRedisStore(undefined, `${this.keyPrefix}${route.method ?? ''}${route.url ?? ''}-`);
    }
  }
  return MultiRedisStore as unknown as FastifyRateLimitStoreCtor;
}

/**
 * The plugin's own key for a client address (IPv6 by its /64), without Node's IPv6 pattern test
 * on every IPv4 address (a visible share of a callback's CPU): an address without a colon is
 * not IPv6, and for it the plugin's key is the address itself.
 */
export function rateLimitKey(ip: string): string {
  return ip.includes(':') ? normalizeIP(ip) : ip.toLowerCase();
}
