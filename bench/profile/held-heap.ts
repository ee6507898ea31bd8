// Profiles what a held askUser keeps alive: one server (Redis store) gets N held askUser calls;
// a heap snapshot is written before and while they are held (after a full GC each), then
// `heap-diff.ts` sums the difference by constructor. Not part of `npm run bench`:
//   node --import tsx bench/profile/held-heap.ts [N] [outDir]
// FLOOR=1 profiles the held floor (bench/servers/held-floor.ts) the same way instead, so the two
// diffs can be compared constructor by constructor.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ASK, graphqlBody, graphqlClient, headersFor, pendingCount } from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { pollUntil, sleep } from '../lib/pool.ts';
import { killAllChildren, rssKiB } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import {
  collectGarbage,
  type Instance,
  startFloorServer,
  startInstance,
  uniquePrefix,
} from '../lib/servers.ts';

const n = Number(process.argv[2] ?? 2000);
/** SNAPSHOTS=0: memory readings only (quicker, for larger N). */
const snapshots = process.env.SNAPSHOTS !== '0';
/** FLOOR=1: the trivial node:http hold instead of the server. */
const floor = process.env.FLOOR === '1';
/** Extra Node flags for the server, e.g. FLAGS='--max-semi-space-size=2'. */
const extraFlags = (process.env.FLAGS ?? '').split(' ').filter(Boolean);
const outDir = path.resolve(process.argv[3] ?? '/tmp/held-heap');
mkdirSync(outDir, { recursive: true });

async function snapshot(pid: number, label: string): Promise<void> {
  if (!snapshots) return;
  const before = new Set(readdirSync(outDir));
  process.kill(pid, 'SIGUSR1');
  const made = await pollUntil(
    async () => readdirSync(outDir).some((f) => !before.has(f) && f.endsWith('.heapsnapshot')),
    120_000,
    250,
  );
  if (!made) throw new Error(`no snapshot for ${label}`);
  // Written in chunks: done when its size stops changing.
  const file = readdirSync(outDir).find((f) => !before.has(f))!;
  let size = -1;
  while (statSync(path.join(outDir, file)).size !== size || size === 0) {
    size = statSync(path.join(outDir, file)).size;
    await sleep(2000);
  }
  console.log(`${label}: rss ${rssKiB(pid)} KiB, files ${readdirSync(outDir).join(' ')}`);
}

/** The resident mappings of a process, largest first: where RSS outside the JS heap lives. */
function largestMappings(pid: number): string {
  const rows: { head: string; rss: number }[] = [];
  let head = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) head = line;
    const m = /^Rss:\s+(\d+) kB/.exec(line);
    if (m) rows.push({ head, rss: Number(m[1]) });
  }
  rows.sort((a, b) => b.rss - a.rss);
  return rows
    .slice(0, 15)
    .map((r) => `${String(r.rss).padStart(8)} KiB  ${r.head}`)
    .join('\n');
}

const redis = await startRedis();
try {
  const nodeFlags = ['--heapsnapshot-signal=SIGUSR1', `--diagnostic-dir=${outDir}`, ...extraFlags];
  const server: Instance = floor
    ? await startFloorServer('held-floor-profile', 'held-floor.ts', {}, true, nodeFlags)
    : await startInstance({
        name: 'held-profile',
        redisUrl: redis.url,
        prefix: uniquePrefix('held-profile'),
        gcOnSignal: true,
        nodeFlags,
      });
  try {
    const operator = graphqlClient(server.url, 'operator', keepAliveAgent(4));
    const control = keepAliveAgent(2);
    /** Calls stored (the server: pending questions, the 200 warm-up asks included) or held (the floor). */
    const held = async (): Promise<number> =>
      floor
        ? Number((await send(`${server.url}/count`, { agent: control })).body)
        : (await pendingCount(operator, 'p')) - 200;
    const agent = socketPerRequestAgent();
    const ask = (i: number, hold: number) =>
      send(`${server.url}/graphql`, {
        agent,
        method: 'POST',
        headers: headersFor('agent'),
        body: graphqlBody(ASK, { input: { text: `held #${i}`, format: 'CONFIRM', groupId: 'p' }, hold }),
      }).catch(() => null);
    // Warm up with asks that return at once (the floor holds them until released).
    if (floor) {
      const warm = Array.from({ length: 200 }, (_, i) => ask(i, 0));
      await pollUntil(async () => (await held()) >= 200, 30_000, 50);
      await send(`${server.url}/release`, { agent: control, method: 'POST' });
      await Promise.all(warm);
    } else {
      for (let i = 0; i < 200; i++) await ask(i, 0);
    }
    const gcBefore = await collectGarbage(server);
    const rssBefore = rssKiB(server.pid);
    console.log('before', gcBefore, 'VmRSS KiB', rssBefore);
    await snapshot(server.pid, 'before');
    // In batches, as the held figure sends them (the listen backlog is 511).
    for (let sent = 0; sent < n; sent += 500) {
      for (let i = sent; i < Math.min(n, sent + 500); i++) void ask(i, 600);
      await pollUntil(async () => (await held()) >= Math.min(n, sent + 500), 60_000, 100);
    }
    // Every call past its first pass (SETTLE=<seconds> waits longer, e.g. for V8's memory reducer).
    await sleep(Number(process.env.SETTLE ?? 4) * 1000);
    const gcHeld = await collectGarbage(server);
    const rssHeld = rssKiB(server.pid);
    console.log('held', gcHeld, 'VmRSS KiB', rssHeld);
    if (gcBefore && gcHeld) {
      const per = (k: 'heapUsed' | 'heapTotal') => ((gcHeld[k] - gcBefore[k]) / 1024 / n).toFixed(2);
      console.log(
        `per held call: heapUsed ${per('heapUsed')} KiB, heapTotal ${per('heapTotal')} KiB, ` +
          `VmRSS ${((rssHeld - rssBefore) / n).toFixed(2)} KiB`,
      );
    }
    if (process.env.SMAPS === '1') console.log(largestMappings(server.pid));
    await snapshot(server.pid, 'held');
  } finally {
    await server.stop();
  }
} finally {
  await redis.stop();
  killAllChildren();
}
process.exit(0);
