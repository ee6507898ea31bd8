// What the audit log (API.md §17) costs on the answer path.
// The answer's atomic step is the store's claim: here it is timed on two Redis stores in this
// process, one with the log and one without (the store's internal `audit: false`, the same
// scripts with the append switched off), interleaved in the same run on the same Redis: p50 of
// one claim alone, and claims per second with 16 at once in alternated rounds. Each claim with
// the log writes one draft entry; a round with the log also pays for chaining all of them
// (every 500 claims, as reads and the chaining worker would, and the rest at its end). Receipt
// signing has its own figure (receipts.ts).
import { Redis } from 'ioredis';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { uniquePrefix } from '../lib/servers.ts';
import { confirmSpec } from '../lib/spec.ts';
import { percentile, round } from '../lib/stats.ts';

const SERIAL_CLAIMS = 1500;
const PARALLEL_CLAIMS = 6000;
/** Rounds of each, alternated; each round claims PARALLEL_CLAIMS / ROUNDS questions. */
const ROUNDS = 6;
const ROUND_CLAIMS = PARALLEL_CLAIMS / ROUNDS;
const CONCURRENCY = 16;

const OPTS = { maxPending: 1_000_000, retentionMs: 3_600_000 };

async function asked(store: QuestionStore, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = confirmSpec();
    await store.create(s, OPTS);
    ids.push(s.id);
  }
  return ids;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

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

    // Claims per second with 16 at once, in alternated rounds (log off, then on) so that both
    // see the same machine: a busy machine's swings between two long runs were larger than the
    // log's cost (issue 46). A round with the log pays for all its chaining: every 500 claims, as
    // reads and the chaining worker would, and what is left at its end, inside the clock.
    const admin = new Redis(ctx.redisUrl);
    conns.push(admin);
    const redisCpuUs = async (): Promise<number> => {
      const info = await admin.info('cpu');
      const v = (k: string) => Number(new RegExp(`${k}:([0-9.]+)`).exec(info)?.[1] ?? 0);
      return (v('used_cpu_user') + v('used_cpu_sys')) * 1e6;
    };
    const total = {
      on: { claims: 0, ms: 0, nodeUs: 0, redisUs: 0 },
      off: { claims: 0, ms: 0, nodeUs: 0, redisUs: 0 },
    };
    const claimRound = async (name: 'on' | 'off', store: QuestionStore): Promise<void> => {
      const withChain = name === 'on';
      const todo = await asked(store, ROUND_CLAIMS);
      // The asks' own entries are chained before the clock starts: only the answers' count.
      if (withChain) await store.audit.chain();
      let next = 0;
      const r0 = await redisCpuUs();
      const c0 = process.cpuUsage();
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
      if (withChain) await store.audit.chain();
      const t1 = performance.now();
      const c = process.cpuUsage(c0);
      const r1 = await redisCpuUs();
      const sum = total[name];
      sum.claims += todo.length;
      sum.ms += t1 - t;
      sum.nodeUs += c.user + c.system;
      sum.redisUs += r1 - r0;
    };
    for (let r = 0; r < ROUNDS; r++) {
      await claimRound('off', off);
      await claimRound('on', on);
    }
    const perSecond = {
      on: total.on.claims / (total.on.ms / 1000),
      off: total.off.claims / (total.off.ms / 1000),
    };
    const perClaim = (name: 'on' | 'off') =>
      `Node ${(total[name].nodeUs / total[name].claims).toFixed(1)} µs, Redis ${(total[name].redisUs / total[name].claims).toFixed(1)} µs`;
    ctx.log(`  claims/s: log on ${perSecond.on.toFixed(0)}, off ${perSecond.off.toFixed(0)}`);
    ctx.log(`  CPU per claim: log on ${perClaim('on')}; off ${perClaim('off')}`);

    const parameters = {
      serialClaims: SERIAL_CLAIMS,
      parallelClaims: PARALLEL_CLAIMS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      nodeUsPerClaimOn: round1(total.on.nodeUs / total.on.claims),
      nodeUsPerClaimOff: round1(total.off.nodeUs / total.off.claims),
      redisUsPerClaimOn: round1(total.on.redisUs / total.on.claims),
      redisUsPerClaimOff: round1(total.off.redisUs / total.off.claims),
    };
    return {
      title: 'Audit log cost',
      about:
        'The answer path’s atomic step (the store’s claim on Redis) with the audit log on and off, in one run on one Redis: the p50 of one claim alone, and claims per second with 16 at once in alternated rounds (with the log, every entry of the round chained inside its clock: every 500 claims, as reads and the chaining worker would, and the rest at its end).',
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
