// Starts a private redis-server on a free loopback port for the whole run, so the Redis
// suites never touch the machine's shared Redis on 6379. Tests read its URL with
// inject('redisUrl') and use a unique key prefix each.
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startRedisServer } from './redis-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedisServer();
  project.provide('redisUrl', redis.url);
  console.log(`[test setup] private redis-server on ${redis.url}`);
  return () => redis.stop();
}
