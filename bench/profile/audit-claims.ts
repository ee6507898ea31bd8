// Where the audit log's cost on claims per second goes (issue 46): on a private redis-server,
// 16 claims at once on a store with the log off, with the log on but never chained while the
// clock runs, and with the log on and chained every 500 claims (the bench's figure); then
// chaining alone (Node's CPU per entry) and Redis's CPU per claim for each. Not part of
// `npm run bench`:   npx tsx bench/profile/audit-claims.ts [claims] [rounds]
import { Redis } from 'ioredis';
import type { QuestionStore } from '../../src/store/types.ts';
import { openRedisStore, specOf } from '../../test/support/fixtures.ts';
import { startRedis } from '../lib/redis.ts';

const N = Number(process.argv[2] ?? 4000);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONCURRENCY = 16;
const redis = await startRedis();
const admin = new Redis(redis.url);
async function redisCpuUs(): Promise<number> {
  const info = await admin.info('cpu');
  const v = (k: string) => Number(new RegExp(`${k}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (v('used_cpu_user') + v('used_cpu_sys')) * 1e6;
}
const opts = { maxPending: 1e9, retentionMs: 600_000 };

async function rate(store: QuestionStore, chainEvery: number) {
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    const s = specOf();
    await store.create(s, opts);
    ids.push(s.id);
  }
  await store.audit.chain();
  let next = 0;
  const r0 = await redisCpuUs();
  const c0 = process.cpuUsage();
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ids.length) {
        const i = next++;
        await store.claim(ids[i]!, {
          status: 'ANSWERED',
          answer: true,
          answeredBy: 'ops',
          now: Date.now(),
          retentionMs: 600_000,
        });
        if (chainEvery && i % chainEvery === chainEvery - 1) await store.audit.chain();
      }
    }),
  );
  const ms = performance.now() - t;
  const c = process.cpuUsage(c0);
  const redisUs = (await redisCpuUs()) - r0;
  // What is left to chain after the clock stopped, timed alone.
  const r1 = await redisCpuUs();
  const c1 = process.cpuUsage();
  const t1 = performance.now();
  await store.audit.chain();
  const chainMs = performance.now() - t1;
  const cc = process.cpuUsage(c1);
  const chainRedisUs = (await redisCpuUs()) - r1;
  return {
    perSecond: Math.round(N / (ms / 1000)),
    nodeUsPerClaim: ((c.user + c.system) / N).toFixed(1),
    redisUsPerClaim: (redisUs / N).toFixed(1),
    chainAfterMs: chainMs.toFixed(0),
    chainNodeUsPerEntry: ((cc.user + cc.system) / N).toFixed(1),
    chainRedisUsPerEntry: (chainRedisUs / N).toFixed(1),
  };
}

try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, audit, every] of [
      ['off', false, 0],
      ['on, unchained', true, 0],
      ['on, chain/500', true, 500],
    ] as const) {
      const { store, close } = openRedisStore(redis.url, { audit });
      console.log(name.padEnd(16), JSON.stringify(await rate(store, every)));
      await close();
    }
  }
} finally {
  admin.disconnect();
  await redis.stop();
}
