// What a round trip costs after the processes sat idle, against one right after the last: the
// reason the resume figure measures its floor after the same pause as its answer. Two servers,
// each its own process: the trivial SSE floor's GET /health (node:http, nothing else) and an
// interactions instance's `{ viewer { id } }`; for each pause, p50 wall time and the server's
// CPU per request (/proc). Not part of `npm run bench`:
//   node --import tsx bench/profile/idle-round-trip.ts [requests per pause]
import { graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { sleep } from '../lib/pool.ts';
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { startFloorServer, startInstance, uniquePrefix } from '../lib/servers.ts';
import { percentile } from '../lib/stats.ts';

const perPause = Number(process.argv[2] ?? 300);
const PAUSES_MS = [0, 1, 5, 40];
const WARMUP = 2000;

const redis = await startRedis();
try {
  const trivial = await startFloorServer('idle-trivial', 'sse-floor.ts');
  const server = await startInstance({
    name: 'idle-viewer',
    redisUrl: redis.url,
    prefix: uniquePrefix('idle'),
  });
  try {
    const agent = keepAliveAgent(1);
    const viewer = graphqlClient(server.url, 'operator', keepAliveAgent(1));
    const targets = [
      {
        name: 'node:http GET /health',
        pid: trivial.pid,
        call: () => send(`${trivial.url}/health`, { agent }),
      },
      {
        name: 'interactions { viewer { id } }',
        pid: server.pid,
        call: () => viewer.post('{ viewer { id } }'),
      },
    ];
    for (const t of targets) {
      for (let i = 0; i < WARMUP; i++) await t.call();
      for (const pause of PAUSES_MS) {
        const wall: number[] = [];
        const c0 = cpuMs(t.pid);
        for (let i = 0; i < perPause; i++) {
          if (pause > 0) await sleep(pause);
          const r = await t.call();
          if (r.status !== 200) throw new Error(`${t.name}: status ${r.status}`);
          wall.push(r.endedAt - r.sentAt);
        }
        const cpuUs = ((cpuMs(t.pid) - c0) * 1000) / perPause;
        process.stdout.write(
          `${t.name}, pause ${pause} ms: p50 ${percentile(wall, 50).toFixed(3)} ms, ` +
            `p90 ${percentile(wall, 90).toFixed(3)} ms, server CPU ${cpuUs.toFixed(0)} µs a request\n`,
        );
      }
    }
  } finally {
    await Promise.all([trivial.stop(), server.stop()]);
  }
} finally {
  await redis.stop();
  killAllChildren();
}
