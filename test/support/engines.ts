// Engines over a real store for tests: memory, or the private test Redis with a unique prefix.
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import type { EngineDeps, EngineSettings } from '../../src/engine/interactions.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { redisPair, uniquePrefix } from './fixtures.ts';

export type StoreKind = 'memory' | 'redis';

/** The connection name of every subscriber of an engine set (for targeted kills). */
export function subscriberName(prefix: string): string {
  return `sub-${prefix.replace(/[^a-z0-9-]/gi, '')}`;
}
export type Engine = ReturnType<typeof createInteractions>;

export const AGENT: Principal = { id: 'agent', roles: ['agent'], restricted: false };
export const AGENT2: Principal = { id: 'agent2', roles: ['agent'], restricted: false };
export const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };
export const ADMIN: Principal = { id: 'admin', roles: ['admin'], restricted: false };
export const ALICE: Principal = { id: 'alice', roles: ['operator', 'agent'], restricted: true };
export const BOB: Principal = { id: 'bob', roles: ['operator', 'agent'], restricted: true };

export const SETTINGS: EngineSettings = {
  answerTimeoutSeconds: 3600,
  holdSeconds: 50,
  retentionSeconds: 3600,
  maxPending: 20_000,
  maxPendingPerPrincipal: 20_000,
  publicBaseUrl: 'https://hitl.example',
  reaperIntervalMs: 60_000,
  sweepIntervalMs: 3_600_000,
};

export interface EngineSet {
  prefix: string;
  engines: Engine[];
  stores: QuestionStore[];
  /** The command connection of each engine (Redis only). */
  redis: Redis[];
  close(): Promise<void>;
}

/** `count` engines sharing one store (one memory store, or one Redis prefix). */
export async function startEngines(
  kind: StoreKind,
  count = 1,
  settings: Partial<EngineSettings> = {},
  ports: Pick<EngineDeps, 'verifiers' | 'channels' | 'policies' | 'receipts' | 'clock' | 'directory'> = {},
): Promise<EngineSet> {
  const s = { ...SETTINGS, ...settings };
  const engines: Engine[] = [];
  const stores: QuestionStore[] = [];
  const redis: Redis[] = [];
  const closers: (() => Promise<void>)[] = [];
  const prefix = uniquePrefix();
  const memory = kind === 'memory' ? createMemoryStore() : null;
  for (let i = 0; i < count; i++) {
    let store: QuestionStore;
    if (memory) {
      store = memory;
    } else {
      const conn = redisPair(inject('redisUrl'), subscriberName(prefix));
      store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix });
      redis.push(conn.redis);
      closers.push(conn.close);
    }
    const engine = createInteractions({ store, settings: s, ...ports });
    await engine.start();
    engines.push(engine);
    stores.push(store);
  }
  return {
    prefix,
    engines,
    stores,
    redis,
    async close() {
      for (const e of engines) await e.stop();
      for (const st of stores) await st.close();
      for (const c of closers) await c();
    },
  };
}
