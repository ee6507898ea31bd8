// What one resume-webhook delivery costs the outbox worker, from counts rather than wall time:
// Redis commands per delivery (by script, from MONITOR), the worker instance's CPU per delivery
// (/proc) and Redis' own CPU (INFO cpu), beside the delivery rate. The outbox is filled first
// (questions asked through one instance, which is then stopped; answered through the store's
// claim script, which enqueues the items, with the audit log off as in the figure), then a
// second instance on the same prefix starts and delivers them all to a trivial receiver, one
// endpoint. Not part of `npm run bench`:
//   npx tsx bench/profile/outbox-counts.ts [questions] [rounds]
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { askResumeRuns, floorBody } from '../figures/outbox.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { pollUntil, runPool } from '../lib/pool.ts';
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { startFloorServer, startInstance, uniquePrefix } from '../lib/servers.ts';

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 1);

/** Script names by SHA, built as src/store/redis/scripts.ts builds them (audit on). */
function shaNames(): Map<string, string> {
  const dir = path.resolve('src/store/redis');
  const common = readFileSync(path.join(dir, 'common.lua'), 'utf8');
  const names = new Map<string, string>();
  for (const n of ['outbox-lease', 'outbox-settle', 'outbox-dead', 'claim', 'receipt-latest']) {
    const body = `${common}\n${readFileSync(path.join(dir, `${n}.lua`), 'utf8')}`;
    for (const on of [true, false]) {
      names.set(createHash('sha1').update(`local AUDIT_ON = ${on}\n${body}`).digest('hex'), n);
    }
  }
  return names;
}

/** The figure's floor: 8 bare fetch loops POSTing bodies of the delivery's shape; CPU per request. */
async function floor(): Promise<{ rate: number; clientMs: number; receiverMs: number }> {
  const body = floorBody;
  const v0 = cpuMs(receiver.pid);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await runPool(N, 8, async (i) => {
    const res = await fetch(`${receiver.url}/ok/floor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': `msg_${i}` },
      body: body(i),
    });
    await res.arrayBuffer();
  });
  const rate = N / ((performance.now() - t0) / 1000);
  const c = process.cpuUsage(c0);
  return { rate, clientMs: (c.user + c.system) / 1000 / N, receiverMs: (cpuMs(receiver.pid) - v0) / N };
}

const redis = await startRedis();
const admin = new Redis(redis.url);
async function redisCpuMs(): Promise<number> {
  const info = await admin.info('cpu');
  const v = (k: string) => Number(new RegExp(`${k}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (v('used_cpu_user') + v('used_cpu_sys')) * 1000;
}
const dir = mkdtempSync(path.join(tmpdir(), 'outbox-counts-'));
const receiver = await startFloorServer('webhook-receiver', 'webhook-receiver.ts');
const manifest = path.join(dir, 'manifest.yaml');
writeFileSync(
  manifest,
  `webhooks:\n  w0:\n    url: ${receiver.url}/ok/w0\n    secretEnv: BENCH_WEBHOOK_SECRET\n`,
);
const env = {
  INTERACTIONS_MANIFEST: manifest,
  BENCH_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
};
const names = shaNames();
try {
  for (let round = 0; round < ROUNDS; round++) {
    const prefix = uniquePrefix('obc');
    const asker = await startInstance({ name: 'outbox-asker', redisUrl: redis.url, prefix, env });
    let ids: string[];
    try {
      ids = await askResumeRuns(asker.url, N);
    } finally {
      await asker.stop();
    }
    const conn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const sub = new Redis(redis.url, { maxRetriesPerRequest: null });
    // Audit off, as the figure's fill: otherwise the delivering instance spends its first seconds
    // chaining these claims' audit entries, which is not a delivery's work (4 % of its CPU).
    const store = createRedisStore({ redis: conn, subscriber: sub, prefix, audit: false });
    await runPool(N, 32, async (i) => {
      const r = await store.claim(ids[i]!, {
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'bench-operator',
        now: Date.now(),
        retentionMs: 7 * 24 * 3600_000,
      });
      if (r.kind !== 'won') throw new Error(`claim ${ids[i]}: ${r.kind}`);
    });
    const queued = (await store.outbox.stats(Date.now())).items;
    // The asks' audit entries are chained here, as in the figure, not by the worker's reaper.
    await store.audit.chain();
    await store.close();
    conn.disconnect();
    sub.disconnect();
    await send(`${receiver.url}/reset`, { agent: keepAliveAgent(1), method: 'POST' });

    const monitor = new Redis(redis.url);
    const counts = new Map<string, number>();
    const m = await monitor.monitor();
    m.on('monitor', (_time: string, args: string[]) => {
      const cmd = args[0]!.toLowerCase();
      const key = cmd === 'evalsha' ? (names.get(args[1]!) ?? args[1]!.slice(0, 8)) : cmd;
      const how = key === 'outbox-settle' ? `:${args[7]}` : '';
      counts.set(key + how, (counts.get(key + how) ?? 0) + 1);
    });
    const r0 = await redisCpuMs();
    const v0 = cpuMs(receiver.pid);
    const worker = await startInstance({ name: 'outbox-worker', redisUrl: redis.url, prefix, env });
    const c0 = cpuMs(worker.pid);
    const t0 = performance.timeOrigin + performance.now();
    const stats = async () =>
      JSON.parse((await send(`${receiver.url}/stats`, { agent: keepAliveAgent(1) })).body) as {
        count: number;
        arrivals: Record<string, number>;
      };
    const done = await pollUntil(async () => (await stats()).count >= N, 120_000, 100);
    const c1 = cpuMs(worker.pid);
    const r1 = await redisCpuMs();
    const v1 = cpuMs(receiver.pid);
    const s = await stats();
    await worker.stop();
    m.disconnect();
    monitor.disconnect();
    const times = Object.values(s.arrivals).sort((a, b) => a - b);
    const first = times[0]!;
    const last = times[times.length - 1]!;
    const per = (n: number) => (n / N).toFixed(2);
    const bySecond: number[] = [];
    for (const t of times) {
      const sec = Math.floor((t - first) / 1000);
      bySecond[sec] = (bySecond[sec] ?? 0) + 1;
    }
    process.stdout.write(`  arrivals per second: ${Array.from(bySecond, (v) => v ?? 0).join(' ')}\n`);
    process.stdout.write(
      `round ${round + 1}: ${queued} queued, ${s.count} delivered${done ? '' : ' (TIMED OUT)'}; ` +
        `${((N - 1) / ((last - first) / 1000)).toFixed(0)} deliveries/s first→last arrival ` +
        `(${((first - t0) / 1000).toFixed(2)} s from start to first); worker CPU ` +
        `${((c1 - c0) / N).toFixed(3)} ms/delivery (after healthy), Redis CPU ${((r1 - r0) / N).toFixed(3)} ms/delivery, receiver CPU ${((v1 - v0) / N).toFixed(3)} ms/delivery; ` +
        `load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`,
    );
    await send(`${receiver.url}/reset`, { agent: keepAliveAgent(1), method: 'POST' });
    const f = await floor();
    process.stdout.write(
      `  floor: ${f.rate.toFixed(0)} requests/s, client CPU ${f.clientMs.toFixed(3)} ms/request, receiver CPU ${f.receiverMs.toFixed(3)} ms/request\n`,
    );
    const rows = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    for (const [k, v] of rows)
      process.stdout.write(`  ${k.padEnd(24)} ${String(v).padStart(7)}  ${per(v)}/delivery\n`);
  }
} finally {
  admin.disconnect();
  await receiver.stop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
  killAllChildren();
}
