// The store contract on a real three-primary Redis Cluster: every script's keys share the
// deployment's hash tag, so each runs on the one node owning that slot.
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasHashTag, hashTaggedPrefix } from '../../src/store/redis/key-prefix.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { storeContract } from '../store/contract.ts';
import { specOf, uniquePrefix } from '../support/fixtures.ts';
import { type LocalCluster, startRedisCluster } from '../support/redis-cluster.ts';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
});

function clusterClient(): Cluster {
  return new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: null } });
}

storeContract('redis cluster', async (o = {}) => {
  const redis = clusterClient();
  const subscriber = clusterClient();
  const store = createRedisStore({ ...o, redis, subscriber, prefix: uniquePrefix() });
  return {
    store,
    async close() {
      await store.close();
      redis.disconnect();
      subscriber.disconnect();
    },
  };
});

describe('hash-tagged keys on a cluster', () => {
  it('keeps a tag the prefix has and wraps one that has none (Redis ignores an empty {})', () => {
    expect(hashTaggedPrefix('tai:')).toBe('{tai:}');
    expect(hashTaggedPrefix('app:{tai}:')).toBe('app:{tai}:');
    expect(hashTaggedPrefix('a{}b:')).toBe('{a{}b:}');
    expect(hasHashTag('x{')).toBe(false);
  });

  it('writes every key of a deployment into one slot, on one node', async () => {
    const redis = clusterClient();
    const subscriber = clusterClient();
    const prefix = uniquePrefix();
    const store = createRedisStore({ redis, subscriber, prefix });
    try {
      const spec = specOf({ idempotencyKey: 'k1' });
      await store.create(spec, { maxPending: 10, retentionMs: 60_000, ticketHash: 'h'.repeat(64) });
      const tagged = hashTaggedPrefix(prefix);
      const keys: string[] = [];
      const untagged: string[] = [];
      for (const node of redis.nodes('master')) {
        keys.push(...(await node.keys(`${tagged}*`)));
        untagged.push(...(await node.keys(`${prefix}*`)));
      }
      expect(keys.length).toBeGreaterThanOrEqual(5);
      const slots = new Set(await Promise.all(keys.map((k) => redis.cluster('KEYSLOT', k))));
      expect(slots.size).toBe(1);
      expect(untagged).toEqual([]);
    } finally {
      await store.close();
      redis.disconnect();
      subscriber.disconnect();
    }
  });
});
