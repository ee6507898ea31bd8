// Figure: what INTERACTIONS_REDIS_WAIT_REPLICAS=1 costs an answer. A replica of the run's
// private Redis is started on loopback; the same store claims questions with WAIT 1 and
// without, alternating, and the value is the median claim with WAIT beside the median
// without (the floor). On one machine the replica is as near as it gets: across hosts the
// difference grows by about one network round trip.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { specOf } from '../../test/support/fixtures.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { pollUntil } from '../lib/pool.ts';
import { freePort, startChild } from '../lib/process.ts';
import { round, summarize } from '../lib/stats.ts';

const CLAIMS = 2000;
const WARMUP = 200;

async function claimMs(store: QuestionStore): Promise<number> {
  const s = specOf({ timeoutAt: Date.now() + 600_000 });
  await store.create(s, { maxPending: 1_000_000, retentionMs: 60_000 });
  const started = process.hrtime.bigint();
  const r = await store.claim(s.id, {
    status: 'ANSWERED',
    answer: true,
    answeredBy: 'bench',
    now: Date.now(),
    retentionMs: 60_000,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.kind !== 'won') throw new Error(`claim ${r.kind}`);
  return ms;
}

export async function replicaWait(ctx: BenchContext): Promise<Section> {
  const primaryPort = new URL(ctx.redisUrl).port;
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'tai-bench-replica-'));
  const replica = startChild(
    'redis-replica',
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--replicaof',
      '127.0.0.1',
      primaryPort,
    ],
    {},
  );
  const redis = new Redis(ctx.redisUrl);
  const subscriber = new Redis(ctx.redisUrl);
  const prefix = `bench-wait-${randomBytes(4).toString('hex')}:`;
  const plain = createRedisStore({ redis, subscriber, prefix });
  const waiting = createRedisStore({ redis, subscriber, prefix, waitReplicas: 1 });
  try {
    const synced = await pollUntil(
      async () => replica.output().includes('sync: Finished with success'),
      10_000,
    );
    if (!synced) throw new Error(`the replica did not sync:\n${replica.output().slice(-1000)}`);
    for (let i = 0; i < WARMUP; i++) await claimMs(i % 2 ? plain : waiting);
    const without: number[] = [];
    const withWait: number[] = [];
    for (let i = 0; i < CLAIMS; i++) {
      without.push(await claimMs(plain));
      withWait.push(await claimMs(waiting));
    }
    const a = summarize(without);
    const b = summarize(withWait);
    ctx.log(
      `  claim without WAIT p50 ${a.p50} ms p99 ${a.p99} ms; with WAIT 1 p50 ${b.p50} ms p99 ${b.p99} ms`,
    );
    return {
      title: 'Answer acknowledged after a replica holds it (WAIT 1)',
      about:
        'One store claims questions on the private Redis, which has one replica on loopback, alternately with INTERACTIONS_REDIS_WAIT_REPLICAS=1 and without (2,000 claims each after 200 warm-ups, one at a time). The value is the median claim with WAIT, the floor the median claim without: the extra time an answer waits until a replica has it. Across hosts add about one network round trip. The p99s are in results.json.',
      figures: [
        figure({
          name: 'claim with WAIT 1 (median)',
          value: b.p50,
          unit: 'ms',
          floorName: 'claim without WAIT',
          floor: a.p50,
          floorUnit: 'ms',
          parameters: {
            claims: CLAIMS,
            warmup: WARMUP,
            without: a,
            withWait: b,
            extraP50Ms: round(b.p50 - a.p50),
          },
        }),
      ],
    };
  } finally {
    await plain.close();
    await waiting.close();
    redis.disconnect();
    subscriber.disconnect();
    await replica.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
