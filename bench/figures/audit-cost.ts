// What the audit log (API.md §17) costs on the answer path, and how fast receipts (§16) sign.
// The answer's atomic step is the store's claim: here it is timed on two Redis stores in this
// process, one with the log and one without (the store's internal `audit: false`, the same
// scripts with the append switched off), interleaved in the same run on the same Redis: p50 of
// one claim alone, and claims per second with 16 at once. Each claim with the log writes one
// entry; the chain is brought up to date every 500 claims, as reads would. Receipt signing has
// its own figure (receipts.ts).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { QuestionSpec } from '../../src/domain/question.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { uniquePrefix } from '../lib/servers.ts';
import { percentile, round } from '../lib/stats.ts';

const SERIAL_CLAIMS = 1500;
const PARALLEL_CLAIMS = 4000;
const CONCURRENCY = 16;

function specOf(): QuestionSpec {
  const now = Date.now();
  return {
    id: randomUUID(),
    text: 'Deploy build 1234 to production?',
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
    createdAt: now,
    timeoutAt: now + 3_600_000,
  };
}

const OPTS = { maxPending: 1_000_000, retentionMs: 3_600_000 };

async function asked(store: QuestionStore, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = specOf();
    await store.create(s, OPTS);
    ids.push(s.id);
  }
  return ids;
}

const claimOf = (store: QuestionStore, id: string) =>
  store.claim(id, {
    status: 'ANSWERED',
    answer: true,
    answeredBy: 'ops',
    now: Date.now(),
    retentionMs: 3_600_000,
  });

export async function auditCost(ctx: BenchContext): Promise<Section> {
  const conns: Redis[] = [];
  const open = (audit: boolean): QuestionStore => {
    const redis = new Redis(ctx.redisUrl);
    const subscriber = new Redis(ctx.redisUrl);
    conns.push(redis, subscriber);
    return createRedisStore({
      redis,
      subscriber,
      prefix: uniquePrefix(audit ? 'audit-on' : 'audit-off'),
      audit,
    });
  };
  const on = open(true);
  const off = open(false);
  try {
    // One claim at a time, on and off interleaved so both see the same machine.
    const serial = { on: [] as number[], off: [] as number[] };
    const ids = { on: await asked(on, SERIAL_CLAIMS), off: await asked(off, SERIAL_CLAIMS) };
    await on.audit.chain();
    for (let i = 0; i < SERIAL_CLAIMS; i++) {
      for (const [name, store] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const t = performance.now();
        await claimOf(store, ids[name][i]!);
        serial[name].push(performance.now() - t);
        if (name === 'on' && i % 500 === 499) await on.audit.chain();
      }
    }
    ctx.log(
      `  claim p50: log on ${percentile(serial.on, 50).toFixed(3)} ms, off ${percentile(serial.off, 50).toFixed(3)} ms`,
    );

    const rate = async (store: QuestionStore, withChain: boolean): Promise<number> => {
      const todo = await asked(store, PARALLEL_CLAIMS);
      // The asks' own entries are chained before the clock starts: only the answers' count.
      if (withChain) await store.audit.chain();
      let next = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < todo.length) {
            const i = next++;
            await claimOf(store, todo[i]!);
            if (withChain && i % 500 === 499) await store.audit.chain();
          }
        }),
      );
      return todo.length / ((performance.now() - t) / 1000);
    };
    const perSecond = { off: await rate(off, false), on: await rate(on, true) };
    ctx.log(`  claims/s: log on ${perSecond.on.toFixed(0)}, off ${perSecond.off.toFixed(0)}`);

    const parameters = {
      serialClaims: SERIAL_CLAIMS,
      parallelClaims: PARALLEL_CLAIMS,
      concurrency: CONCURRENCY,
    };
    return {
      title: 'Audit log cost',
      about:
        'The answer path’s atomic step (the store’s claim on Redis) with the audit log on and off, in one run on one Redis: the p50 of one claim alone, and claims per second with 16 at once (the log’s chain brought up to date every 500 claims, as reads would).',
      figures: [
        figure({
          name: 'claim p50, audit log on',
          value: round(percentile(serial.on, 50)),
          unit: 'ms',
          floorName: 'log off',
          floor: round(percentile(serial.off, 50)),
          floorUnit: 'ms',
          parameters,
        }),
        figure({
          name: 'claims/s, audit log on',
          value: Math.round(perSecond.on),
          unit: '/s',
          floorName: 'log off',
          floor: Math.round(perSecond.off),
          floorUnit: '/s',
          parameters,
        }),
      ],
    };
  } finally {
    await on.close();
    await off.close();
    for (const c of conns) c.disconnect();
  }
}
