// Where the questions live: the embedded memory store, or Redis (one server, a Cluster, or a
// primary found through Sentinel), the key prefix and how long resolved questions are kept.
import { z } from 'zod';
import { ConfigError, quoting, settingsArea, urlSetting, wholeNumber } from './fields.ts';

export const REDIS_MODES = ['standalone', 'cluster', 'sentinel'] as const;
export type RedisMode = (typeof REDIS_MODES)[number];

export interface StoreSettings {
  /** null: the embedded in-memory store. */
  readonly redisUrl: string | null;
  /**
   * How INTERACTIONS_REDIS_URL is reached: one server, a Cluster (the URL is a seed node), or
   * a primary found through Sentinel (the URL gives only credentials and TLS).
   */
  readonly redisMode: RedisMode;
  /** Sentinel mode only: the sentinels and the name of the primary they monitor. */
  readonly redisSentinels: readonly { host: string; port: number }[];
  readonly redisSentinelName: string | null;
  /** Replicas that must confirm an answer before it is acknowledged (Redis WAIT); 0: none. */
  readonly redisWaitReplicas: number;
  readonly keyPrefix: string;
  readonly retentionSeconds: number;
}

// The Redis URL may carry a password, so its value is never echoed.
const redisUrlSchema = urlSetting('a redis:// or rediss:// URL', (url, raw) => {
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return 'wrong scheme';
  if (url.hostname === '') return 'no host';
  return { keep: raw };
});

const redisModeSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(REDIS_MODES, { error: quoting(`one of ${REDIS_MODES.join(', ')}`) }))
  .default('standalone');

const SENTINELS_EXPECTED = 'a comma list of host:port (at most 16)';
/** `host:port` items; IPv6 hosts in brackets. Blank: none. */
const sentinelsSchema = z
  .string()
  .transform((raw, ctx) => {
    const items = raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim());
    const out: { host: string; port: number }[] = [];
    for (const item of items) {
      const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]{1,253}):([0-9]{1,5})$/.exec(item);
      const port = m ? Number(m[2]) : 0;
      if (!m || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: `expected ${SENTINELS_EXPECTED}` });
        return z.NEVER;
      }
      out.push({ host: m[1]!.replace(/^\[|\]$/g, ''), port });
    }
    if (out.length > 16) {
      ctx.addIssue({ code: 'custom', message: `expected ${SENTINELS_EXPECTED}` });
      return z.NEVER;
    }
    return out;
  })
  .default([]);

const sentinelNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,100}$/, { error: quoting('a primary name of letters, digits, . _ -') })
  .optional()
  .transform((v) => v ?? null);

const KEY_PREFIX_MAX = 100;
const keyPrefixSchema = z
  .string()
  // `u`: the length counts code points.
  .regex(new RegExp(`^\\S{1,${KEY_PREFIX_MAX}}$`, 'u'), {
    error: quoting(`a non-empty prefix without whitespace, at most ${KEY_PREFIX_MAX} characters`),
  })
  .default('interactions:');

const env = {
  INTERACTIONS_REDIS_URL: redisUrlSchema,
  INTERACTIONS_REDIS_MODE: redisModeSchema,
  INTERACTIONS_REDIS_SENTINELS: sentinelsSchema,
  INTERACTIONS_REDIS_SENTINEL_NAME: sentinelNameSchema,
  INTERACTIONS_REDIS_WAIT_REPLICAS: wholeNumber(0, 0, 16),
  INTERACTIONS_KEY_PREFIX: keyPrefixSchema,
  INTERACTIONS_RETENTION_SECONDS: wholeNumber(604_800, 1),
};

/** The Redis settings that only make sense together. */
function checkRedisMode(e: z.output<z.ZodObject<typeof env>>): void {
  const sentinel = e.INTERACTIONS_REDIS_MODE === 'sentinel';
  if (e.INTERACTIONS_REDIS_MODE !== 'standalone' && e.INTERACTIONS_REDIS_URL === null) {
    throw new ConfigError(
      'INTERACTIONS_REDIS_MODE',
      `${e.INTERACTIONS_REDIS_MODE} needs INTERACTIONS_REDIS_URL`,
    );
  }
  const db = e.INTERACTIONS_REDIS_URL === null ? '' : new URL(e.INTERACTIONS_REDIS_URL).pathname.slice(1);
  if (e.INTERACTIONS_REDIS_MODE === 'cluster' && db !== '' && db !== '0') {
    throw new ConfigError(
      'INTERACTIONS_REDIS_URL',
      'a Redis Cluster has only database 0: drop the /<db> path',
    );
  }
  if (e.INTERACTIONS_REDIS_WAIT_REPLICAS > 0 && e.INTERACTIONS_REDIS_MODE === 'cluster') {
    throw new ConfigError(
      'INTERACTIONS_REDIS_WAIT_REPLICAS',
      'not supported when INTERACTIONS_REDIS_MODE is cluster',
    );
  }
  if (sentinel && e.INTERACTIONS_REDIS_SENTINELS.length === 0) {
    throw new ConfigError(
      'INTERACTIONS_REDIS_SENTINELS',
      'required when INTERACTIONS_REDIS_MODE is sentinel',
    );
  }
  if (sentinel && e.INTERACTIONS_REDIS_SENTINEL_NAME === null) {
    throw new ConfigError(
      'INTERACTIONS_REDIS_SENTINEL_NAME',
      'required when INTERACTIONS_REDIS_MODE is sentinel',
    );
  }
  if (
    !sentinel &&
    (e.INTERACTIONS_REDIS_SENTINELS.length > 0 || e.INTERACTIONS_REDIS_SENTINEL_NAME !== null)
  ) {
    const variable =
      e.INTERACTIONS_REDIS_SENTINELS.length > 0
        ? 'INTERACTIONS_REDIS_SENTINELS'
        : 'INTERACTIONS_REDIS_SENTINEL_NAME';
    throw new ConfigError(variable, 'only used when INTERACTIONS_REDIS_MODE is sentinel');
  }
}

export const storeSettings = settingsArea({
  env,
  read(e): StoreSettings {
    checkRedisMode(e);
    return {
      redisUrl: e.INTERACTIONS_REDIS_URL,
      redisMode: e.INTERACTIONS_REDIS_MODE,
      redisSentinels: Object.freeze(e.INTERACTIONS_REDIS_SENTINELS),
      redisSentinelName: e.INTERACTIONS_REDIS_SENTINEL_NAME,
      redisWaitReplicas: e.INTERACTIONS_REDIS_WAIT_REPLICAS,
      keyPrefix: e.INTERACTIONS_KEY_PREFIX,
      retentionSeconds: e.INTERACTIONS_RETENTION_SECONDS,
    };
  },
});
