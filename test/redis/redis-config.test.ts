// The Redis deployment settings: each mode's required companions, and every limit at the limit
// and one past it. Values never appear in the errors (the URL may hold a password).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.ts';

const URL = 'redis://user:s3cret@cache.example:6380';

function error(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const sentinels = (n: number): string =>
  Array.from({ length: n }, (_, i) => `10.0.0.${i + 1}:26379`).join(',');

describe('Redis deployment settings', () => {
  it('reads cluster and sentinel modes, case- and space-insensitively', () => {
    expect(loadConfig({ INTERACTIONS_REDIS_URL: URL, INTERACTIONS_REDIS_MODE: ' Cluster ' }).redisMode).toBe(
      'cluster',
    );
    const c = loadConfig({
      INTERACTIONS_REDIS_URL: URL,
      INTERACTIONS_REDIS_MODE: 'sentinel',
      INTERACTIONS_REDIS_SENTINELS: 'a.example:26379, [::1]:26380,10.1.2.3:1',
      INTERACTIONS_REDIS_SENTINEL_NAME: 'main-1',
      INTERACTIONS_REDIS_WAIT_REPLICAS: '1',
    });
    expect(c.redisSentinels).toEqual([
      { host: 'a.example', port: 26379 },
      { host: '::1', port: 26380 },
      { host: '10.1.2.3', port: 1 },
    ]);
    expect(c.redisSentinelName).toBe('main-1');
    expect(c.redisWaitReplicas).toBe(1);
  });

  it('refuses an unknown mode, and a mode other than standalone without a URL', () => {
    expect(error({ INTERACTIONS_REDIS_MODE: 'replicated' }).message).toMatch(
      /^INTERACTIONS_REDIS_MODE: .*one of standalone, cluster, sentinel/,
    );
    expect(error({ INTERACTIONS_REDIS_MODE: 'cluster' }).message).toBe(
      'INTERACTIONS_REDIS_MODE: cluster needs INTERACTIONS_REDIS_URL',
    );
  });

  it('sentinel mode needs its sentinels and the primary name; other modes refuse them', () => {
    const base = { INTERACTIONS_REDIS_URL: URL, INTERACTIONS_REDIS_MODE: 'sentinel' };
    expect(error({ ...base, INTERACTIONS_REDIS_SENTINEL_NAME: 'm' }).variable).toBe(
      'INTERACTIONS_REDIS_SENTINELS',
    );
    expect(error({ ...base, INTERACTIONS_REDIS_SENTINELS: 'h:1' }).variable).toBe(
      'INTERACTIONS_REDIS_SENTINEL_NAME',
    );
    const stray = error({ INTERACTIONS_REDIS_URL: URL, INTERACTIONS_REDIS_SENTINELS: 'h:1' });
    expect(stray.message).toBe(
      'INTERACTIONS_REDIS_SENTINELS: only used when INTERACTIONS_REDIS_MODE is sentinel',
    );
  });

  it('takes 16 sentinels and refuses 17; refuses malformed items and ports out of range', () => {
    const base = {
      INTERACTIONS_REDIS_URL: URL,
      INTERACTIONS_REDIS_MODE: 'sentinel',
      INTERACTIONS_REDIS_SENTINEL_NAME: 'm',
    };
    expect(loadConfig({ ...base, INTERACTIONS_REDIS_SENTINELS: sentinels(16) }).redisSentinels).toHaveLength(
      16,
    );
    for (const bad of [sentinels(17), 'h', 'h:0', 'h:65536', 'h:1,,h:2', 'a b:1', '::1:26379']) {
      const e = error({ ...base, INTERACTIONS_REDIS_SENTINELS: bad });
      expect(e.variable).toBe('INTERACTIONS_REDIS_SENTINELS');
      expect(e.message).toContain('a comma list of host:port (at most 16)');
    }
    expect(loadConfig({ ...base, INTERACTIONS_REDIS_SENTINELS: 'h:65535' }).redisSentinels).toEqual([
      { host: 'h', port: 65535 },
    ]);
  });

  it('a primary name of 100 characters is accepted, 101 or odd characters are refused', () => {
    const base = {
      INTERACTIONS_REDIS_URL: URL,
      INTERACTIONS_REDIS_MODE: 'sentinel',
      INTERACTIONS_REDIS_SENTINELS: 'h:1',
    };
    expect(
      loadConfig({ ...base, INTERACTIONS_REDIS_SENTINEL_NAME: 'm'.repeat(100) }).redisSentinelName,
    ).toHaveLength(100);
    for (const bad of ['m'.repeat(101), 'has space', ''])
      expect(error({ ...base, INTERACTIONS_REDIS_SENTINEL_NAME: bad }).variable).toBe(
        'INTERACTIONS_REDIS_SENTINEL_NAME',
      );
  });

  it('waits for at most 16 replicas, and never on a cluster', () => {
    expect(
      loadConfig({ INTERACTIONS_REDIS_URL: URL, INTERACTIONS_REDIS_WAIT_REPLICAS: '16' }).redisWaitReplicas,
    ).toBe(16);
    expect(error({ INTERACTIONS_REDIS_URL: URL, INTERACTIONS_REDIS_WAIT_REPLICAS: '17' }).variable).toBe(
      'INTERACTIONS_REDIS_WAIT_REPLICAS',
    );
    expect(
      error({
        INTERACTIONS_REDIS_URL: URL,
        INTERACTIONS_REDIS_MODE: 'cluster',
        INTERACTIONS_REDIS_WAIT_REPLICAS: '1',
      }).message,
    ).toBe('INTERACTIONS_REDIS_WAIT_REPLICAS: not supported when INTERACTIONS_REDIS_MODE is cluster');
  });

  it('a cluster takes database 0 or none and refuses any other', () => {
    const cluster = { INTERACTIONS_REDIS_MODE: 'cluster' };
    expect(loadConfig({ ...cluster, INTERACTIONS_REDIS_URL: `${URL}/0` }).redisMode).toBe('cluster');
    expect(loadConfig({ ...cluster, INTERACTIONS_REDIS_URL: `${URL}/` }).redisMode).toBe('cluster');
    const e = error({ ...cluster, INTERACTIONS_REDIS_URL: `${URL}/1` });
    expect(e.message).toBe(
      'INTERACTIONS_REDIS_URL: a Redis Cluster has only database 0: drop the /<db> path',
    );
    expect(loadConfig({ INTERACTIONS_REDIS_URL: `${URL}/1` }).redisMode).toBe('standalone');
  });

  it('never echoes the URL password in a Redis setting error', () => {
    const e = error({ INTERACTIONS_REDIS_URL: URL, INTERACTIONS_REDIS_MODE: 'sentinel' });
    expect(e.message).not.toContain('s3cret');
  });
});
