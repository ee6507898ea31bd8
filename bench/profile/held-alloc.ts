// What a held askUser allocates on its way in, garbage included: one server (Redis store) with
// V8's sampling heap profiler on (bench/servers/alloc-profile-on-signal.ts) while N held askUser
// calls arrive in batches of 500, as the held figure sends them. The garbage a call makes before
// its hold is what fragments the heap (bench/README.md, "Held askUser calls"): this prints the
// bytes allocated per held call by function and by where the code lives. Not part of `npm run bench`:
//   node --import tsx bench/profile/held-alloc.ts [N] [outDir]
// FLOOR=1 profiles the held floor (bench/servers/held-floor.ts) the same way; PROMOTED=1 counts
// only what survived the young generation (what was promoted, whether it died later or not);
// RETAINED=1 only what is still alive after a full collection at the end (what the held calls
// keep): PROMOTED less RETAINED is the garbage that died in the old space.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { heldLoad } from '../lib/held-load.ts';
import { pollUntil } from '../lib/pool.ts';
import { killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { type Instance, startFloorServer, startInstance, uniquePrefix } from '../lib/servers.ts';

const n = Number(process.argv[2] ?? 2000);
const floor = process.env.FLOOR === '1';
const outDir = path.resolve(process.argv[3] ?? '/tmp/held-alloc');
mkdirSync(outDir, { recursive: true });

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Where a frame's code lives: a package, Node itself, or one of our folders. */
function placeOf(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:') || url === '') return url === '' ? '(native)' : 'node';
  const ours = /\/(src|bench)\/(.*?)\/[^/]*$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

function summarise(file: string, per: number): void {
  const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode }).head;
  const byFrame = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode): void => {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${f.lineNumber + 1}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + node.selfSize);
    const place = placeOf(f.url);
    byPlace.set(place, (byPlace.get(place) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const c of node.children) walk(c);
  };
  walk(head);
  const rows = (m: Map<string, number>, top: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${String(Math.round(v / per)).padStart(8)} B  ${k}`)
      .join('\n');
  console.log(`allocated per held call: ${Math.round(total / per)} B (sampled)`);
  console.log(`\nby where the code lives:\n${rows(byPlace, 25)}`);
  console.log(`\nby function (self):\n${rows(byFrame, 50)}`);
}

const redis = await startRedis();
try {
  const env = {
    BENCH_ALLOC_PROFILE_DIR: outDir,
    BENCH_ALLOC_PROMOTED: process.env.PROMOTED ?? '0',
    BENCH_ALLOC_RETAINED: process.env.RETAINED ?? '0',
  };
  const nodeFlags = ['--expose-gc', '--import', './bench/servers/alloc-profile-on-signal.ts'];
  const prefix = uniquePrefix('held-alloc');
  const server: Instance = floor
    ? await startFloorServer('held-floor-alloc', 'held-floor.ts', env, false, nodeFlags)
    : await startInstance({ name: 'held-alloc', redisUrl: redis.url, prefix, env, nodeFlags });
  const index = new Redis(redis.url);
  try {
    const load = heldLoad(server, floor, index, prefix);
    await load.warmUp();
    const before = new Set(readdirSync(outDir));
    process.kill(server.pid, 'SIGWINCH');
    await load.holdMany(n, 120);
    process.kill(server.pid, 'SIGWINCH');
    const made = await pollUntil(
      async () => readdirSync(outDir).some((f) => !before.has(f) && f.endsWith('.heapprofile')),
      60_000,
      250,
    );
    if (!made) throw new Error('no heap profile was written');
    const file = readdirSync(outDir).find((f) => !before.has(f) && f.endsWith('.heapprofile'))!;
    summarise(path.join(outDir, file), n);
  } finally {
    index.disconnect();
    await server.stop();
  }
} finally {
  await redis.stop();
  killAllChildren();
}
process.exit(0);
