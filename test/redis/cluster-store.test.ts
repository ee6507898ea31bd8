// The store contract on a real three-primary Redis Cluster: every script's keys share the
// deployment's hash tag, so each runs on the one node owning that slot.
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasHashTag, hashTaggedPrefix } from '../../src/store/redis/key-prefix.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { StoreEvent } from '../../src/store/types.ts';
import { auditContract } from '../store/audit-contract.ts';
import { storeContract } from '../store/contract.ts';
import { listingContract } from '../store/listing-contract.ts';
import { deferred, specOf, uniquePrefix } from '../support/fixtures.ts';
import { gqlAt } from '../support/processes.ts';
import { type LocalCluster, startRedisCluster } from '../support/redis-cluster.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

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

listingContract('redis cluster', async () => {
  const redis = clusterClient();
  const subscriber = clusterClient();
  const store = createRedisStore({ redis, subscriber, prefix: uniquePrefix() });
  return {
    store,
    async close() {
      await store.close();
      redis.disconnect();
      subscriber.disconnect();
    },
  };
});

// The audit log's keys and scripts (drafts, chain head, per-question index) share the slot too.
auditContract('redis cluster', async () => {
  const redis = clusterClient();
  const subscriber = clusterClient();
  const store = createRedisStore({ redis, subscriber, prefix: uniquePrefix() });
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
      const spec = specOf({ idempotencyKey: 'k1', audience: 'u', groupId: 'g', channel: 'c' });
      await store.create(spec, { maxPending: 10, retentionMs: 60_000, ticketHash: 'h'.repeat(64) });
      // The listing indexes too: per status and field, moved by the claim, read by a page.
      await store.create(specOf({ askedBy: 'b' }), { maxPending: 10, retentionMs: 60_000 });
      await store.claim(spec.id, { status: 'CANCELLED', now: Date.now(), retentionMs: 60_000 });
      expect((await store.list({ audience: 'u', askedBy: 'agent' }, { first: 5 })).totalCount).toBe(1);
      expect(await store.ensureIndexes()).toBe(2);
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

describe('two servers on one cluster', () => {
  const ASK = /* GraphQL */ `
    mutation Ask($input: AskUserInput!, $hold: Int) {
      askUser(input: $input, holdSeconds: $hold) { status answer question { id status } }
    }
  `;
  const ANSWER = /* GraphQL */ `
    mutation Answer($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id status answer } }
  `;

  it('an answer sent to B wakes the askUser held on A, and both are ready', async () => {
    const prefix = uniquePrefix();
    const env = {
      INTERACTIONS_REDIS_URL: `redis://${cluster.nodes[1]!.host}:${cluster.nodes[1]!.port}`,
      INTERACTIONS_REDIS_MODE: 'cluster',
    };
    const servers: TestServer[] = [];
    // A third client on the same deployment sees the announcement, proving pub/sub crosses nodes.
    const redis = clusterClient();
    const subscriber = clusterClient();
    const watcher = createRedisStore({ redis, subscriber, prefix });
    try {
      for (let i = 0; i < 2; i++) servers.push(await startServer({ store: 'memory', prefix, env }));
      const [a, b] = await Promise.all(servers.map((s) => s.listen()));
      for (const url of [a!, b!]) expect((await fetch(`${url}/ready`)).status).toBe(200);
      const asked = deferred<StoreEvent>();
      await watcher.listen({ event: (e) => e.type === 'ASKED' && asked.resolve(e), resync() {} });

      const held = gqlAt(a!, KEYS.agent, ASK, { input: { text: 'Name?', format: 'TEXT' }, hold: 30 });
      const { question } = await asked.promise;
      const answered = await gqlAt(b!, KEYS.ops, ANSWER, { id: question.id, answer: 'Ada' });
      expect(answered.errors).toBeUndefined();
      const r = await held;
      expect(r.errors).toBeUndefined();
      expect(r.data.askUser).toEqual({
        status: 'ANSWERED',
        answer: 'Ada',
        question: { id: question.id, status: 'ANSWERED' },
      });
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      await watcher.close();
      redis.disconnect();
      subscriber.disconnect();
    }
  });
});
