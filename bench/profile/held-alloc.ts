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
import { ANSWER, ASK, type AskData, graphqlBody, graphqlClient, headersFor } from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { pollUntil, runPool } from '../lib/pool.ts';
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
    const operator = graphqlClient(server.url, 'operator', keepAliveAgent(8));
    const control = keepAliveAgent(2);
    /** As held-heap.ts counts: the pending index read from Redis, or the floor's count. */
    const held = async (): Promise<number> =>
      floor
        ? Number((await send(`${server.url}/count`, { agent: control })).body)
        : index.zcard(`${prefix}pending`);
    const agent = socketPerRequestAgent();
    const ask = (i: number, hold: number) =>
      send(`${server.url}/graphql`, {
        agent,
        method: 'POST',
        headers: headersFor('agent'),
        body: graphqlBody(ASK, {
          input: { text: `held #${i}`, format: 'CONFIRM', groupId: 'held', timeoutSeconds: 600 },
          hold,
        }),
      }).catch(() => null);
    if (floor) {
      const warm = Array.from({ length: 200 }, (_, i) => ask(i, 0));
      await pollUntil(async () => (await held()) >= 200, 30_000, 50);
      await send(`${server.url}/release`, { agent: control, method: 'POST' });
      await Promise.all(warm);
    } else {
      const agentClient = graphqlClient(server.url, 'agent', keepAliveAgent(8));
      await runPool(200, 8, async (i) => {
        const asked = await agentClient.call<AskData>(ASK, {
          input: { text: `warm-up #${i}`, format: 'CONFIRM', groupId: 'warm-up' },
          hold: 0,
        });
        await operator.call(ANSWER, { id: asked.askUser.question.id, answer: true });
      });
    }
    const before = new Set(readdirSync(outDir));
    process.kill(server.pid, 'SIGWINCH');
    for (let sent = 0; sent < n; sent += 500) {
      for (let i = sent; i < Math.min(n, sent + 500); i++) void ask(i, 120);
      await pollUntil(async () => (await held()) >= Math.min(n, sent + 500), 60_000, 100);
    }
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
