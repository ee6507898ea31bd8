// Profiles what a held askUser keeps alive: one server (Redis store) gets N held askUser calls,
// warmed up, sent and counted as the held figure does (bench/figures/held-requests.ts); a heap
// snapshot is written before and while they are held (after a full GC each), then
// `heap-diff.ts` sums the difference by constructor. Not part of `npm run bench`:
//   node --import tsx bench/profile/held-heap.ts [N] [outDir]
// FLOOR=1 profiles the held floor (bench/servers/held-floor.ts) the same way instead, so the two
// diffs can be compared constructor by constructor. SNAPSHOTS=0 gives the memory readings alone
// (at N = 18,000 they match the figure's perHeldHeapUsedKiB and perHeldHeapTotalKiB); PROMOTED=1
// adds what the young generation promoted to the old space during the ramp.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { heldLoad } from '../lib/held-load.ts';
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
/** PROMOTED=1: also count what young collections move into the old space during the ramp. */
const promoted = process.env.PROMOTED === '1';
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
  const nodeFlags = [
    '--heapsnapshot-signal=SIGUSR1',
    `--diagnostic-dir=${outDir}`,
    ...(promoted ? ['--import', './bench/servers/promoted-on-signal.ts'] : []),
    ...extraFlags,
  ];
  const prefix = uniquePrefix('held-profile');
  const server: Instance = floor
    ? await startFloorServer('held-floor-profile', 'held-floor.ts', {}, true, nodeFlags)
    : await startInstance({ name: 'held-profile', redisUrl: redis.url, prefix, gcOnSignal: true, nodeFlags });
  const index = new Redis(redis.url);
  try {
    // The held figure's warm-up, requests and batches (bench/lib/held-load.ts).
    const load = heldLoad(server, floor, index, prefix);
    await load.warmUp();
    const gcBefore = await collectGarbage(server);
    const rssBefore = rssKiB(server.pid);
    console.log('before', gcBefore, 'VmRSS KiB', rssBefore);
    await snapshot(server.pid, 'before');
    if (promoted) process.kill(server.pid, 'SIGPWR');
    await load.holdMany(n, 120);
    // Every call past its first pass (SETTLE=<seconds> waits longer, e.g. for V8's memory reducer).
    await sleep(Number(process.env.SETTLE ?? 4) * 1000);
    if (promoted) {
      process.kill(server.pid, 'SIGPWR');
      const line = async () => server.output().split('gc-promoted ')[1]?.split('\n')[0];
      await pollUntil(async () => (await line()) !== undefined, 10_000, 100);
      const p = JSON.parse((await line()) ?? '{}') as { young: number; full: number; promoted: number };
      console.log(
        `during the ramp: ${p.young} young and ${p.full} full collections; promoted per held call ` +
          `${(p.promoted / 1024 / n).toFixed(2)} KiB`,
      );
    }
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
    index.disconnect();
    await server.stop();
  }
} finally {
  await redis.stop();
  killAllChildren();
}
process.exit(0);
