// Small builders for tests: question specs and Redis connections on the private server.
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { actionDigest } from '../../src/domain/approval.ts';
import type { ActionSpec, QuestionSpec } from '../../src/domain/question.ts';
import {
  createRedisStore,
  type RedisQuestionStore,
  type RedisStoreOptions,
} from '../../src/store/redis/redis-store.ts';

export function specOf(over: Partial<QuestionSpec> = {}): QuestionSpec {
  const createdAt = over.createdAt ?? Date.now();
  return {
    id: randomUUID(),
    text: 'Ship it?',
    format: 'CONFIRM',
    options: null,
    schema: null,
    link: null,
    verifier: null,
    media: null,
    groupId: null,
    audience: null,
    channel: null,
    recipient: null,
    sensitive: false,
    askedBy: 'agent',
    idempotencyKey: null,
    createdAt,
    timeoutAt: createdAt + 60_000,
    ...over,
  };
}

/** The proposed action of the tests' APPROVAL questions: a refund with `args`, not editable. */
export function refundAction(args: Record<string, unknown>): ActionSpec {
  return {
    name: 'payments.refund',
    summary: null,
    arguments: args,
    argumentsSchema: null,
    editable: false,
    digest: actionDigest('payments.refund', args),
  };
}

export function uniquePrefix(): string {
  return `test-${randomBytes(6).toString('hex')}:`;
}

/** A command connection and a subscriber connection on the private test Redis. */
export function redisPair(
  url: string,
  name?: string,
): { redis: Redis; subscriber: Redis; close(): Promise<void> } {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: null });
  // A named subscriber can be killed alone (the test Redis is shared by parallel files).
  const subscriber = new Redis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: null,
    ...(name ? { connectionName: name } : {}),
  });
  return {
    redis,
    subscriber,
    async close() {
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}

/** Resolves with the first value that `pick` returns non-undefined for, from a listener. */
export function deferred<T>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A free loopback port (for a server that must know its own URL before it starts). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as import('node:net').AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Kills the pub/sub connections with this name (CLIENT KILL has no name filter). */
export async function killSubscribers(redis: Redis, name: string): Promise<number> {
  const list = String(await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
  const ids = list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => /\bid=(\d+)/.exec(line)?.[1])
    .filter((id): id is string => id !== undefined);
  for (const id of ids) await redis.call('CLIENT', 'KILL', 'ID', id);
  return ids.length;
}

/** A Redis store on its own connections and prefix, and how to close both. */
export function openRedisStore(
  url: string,
  o: Partial<Omit<RedisStoreOptions, 'redis' | 'subscriber' | 'prefix'>> = {},
): { store: RedisQuestionStore; close(): Promise<void> } {
  const conn = redisPair(url);
  const store = createRedisStore({
    ...o,
    redis: conn.redis,
    subscriber: conn.subscriber,
    prefix: uniquePrefix(),
  });
  return {
    store,
    async close() {
      await store.close();
      await conn.close();
    },
  };
}
