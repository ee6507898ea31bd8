// CPU per answer through the callback door, beside the Fastify GET+SET floor, from /proc:
// steadier than answers per second on a shared machine. One door instance and the floor
// server on one private Redis; EXTERNAL questions are asked first, then rounds alternate door
// and floor (CONCURRENCY in flight). Prints, per round and as medians, server and Redis CPU
// per request for each. Not part of `npm run bench`:
//   node --import tsx bench/profile/callback-cpu.ts [rounds] [perRound]
import { ASK, type AskData, graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { runPool } from '../lib/pool.ts';
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { startFloorServer, startInstance, uniquePrefix } from '../lib/servers.ts';
import { median } from '../lib/stats.ts';

const rounds = Number(process.argv[2] ?? 6);
const perRound = Number(process.argv[3] ?? 1500);
const WARMUP = 2000;
const CONCURRENCY = 32;
const BODY = JSON.stringify({ approved: true, signer: 'bench', document: 'contract-42' });

async function drive(baseUrl: string, paths: string[]): Promise<number> {
  const agent = keepAliveAgent(CONCURRENCY);
  const started = performance.now();
  await runPool(paths.length, CONCURRENCY, async (i) => {
    const r = await send(`${baseUrl}${paths[i]}`, {
      agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
    });
    if (r.status !== 200 || !r.body.includes('"answered"')) throw new Error(`${r.status} ${r.body}`);
  });
  agent.destroy();
  return paths.length / ((performance.now() - started) / 1000);
}

const redis = await startRedis();
try {
  const door = await startInstance({
    name: 'callback-cpu',
    redisUrl: redis.url,
    prefix: uniquePrefix('ccpu'),
    env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000000' },
  });
  const floor = await startFloorServer('fastify-floor', 'fastify-floor.ts', { BENCH_REDIS_URL: redis.url });
  try {
    const agent = graphqlClient(door.url, 'agent', keepAliveAgent(CONCURRENCY));
    const total = WARMUP + rounds * perRound;
    const paths: string[] = new Array(total);
    await runPool(total, CONCURRENCY, async (i) => {
      const d = await agent.call<AskData>(ASK, {
        input: { text: `Sign #${i}`, format: 'EXTERNAL', link: 'https://sign.example/doc?cb={callback_url}' },
        hold: 0,
      });
      paths[i] = new URL(d.askUser.callbackUrl!).pathname;
    });
    const floorPaths = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `/answer/k${from + i}`);
    await drive(door.url, paths.slice(0, WARMUP));
    await drive(floor.url, floorPaths(0, WARMUP));
    const rows: { door: number; doorRedis: number; floor: number; floorRedis: number; ratio: number }[] = [];
    const perReq = (ms: number) => (ms * 1000) / perRound;
    for (let r = 0; r < rounds; r++) {
      const from = WARMUP + r * perRound;
      let s = cpuMs(door.pid);
      let rs = cpuMs(redis.child.pid);
      const doorRate = await drive(door.url, paths.slice(from, from + perRound));
      const doorUs = perReq(cpuMs(door.pid) - s);
      const doorRedisUs = perReq(cpuMs(redis.child.pid) - rs);
      s = cpuMs(floor.pid);
      rs = cpuMs(redis.child.pid);
      const floorRate = await drive(floor.url, floorPaths(from, perRound));
      const floorUs = perReq(cpuMs(floor.pid) - s);
      const floorRedisUs = perReq(cpuMs(redis.child.pid) - rs);
      rows.push({
        door: doorUs,
        doorRedis: doorRedisUs,
        floor: floorUs,
        floorRedis: floorRedisUs,
        ratio: doorRate / floorRate,
      });
      console.log(
        `round ${r}: door ${doorUs.toFixed(0)} µs + redis ${doorRedisUs.toFixed(0)} µs (${doorRate.toFixed(0)}/s); ` +
          `floor ${floorUs.toFixed(0)} µs + redis ${floorRedisUs.toFixed(0)} µs (${floorRate.toFixed(0)}/s)`,
      );
    }
    const m = (k: keyof (typeof rows)[number]) =>
      median(rows.map((x) => x[k])).toFixed(k === 'ratio' ? 2 : 0);
    console.log(
      `median per request: door ${m('door')} µs + redis ${m('doorRedis')} µs; floor ${m('floor')} µs + redis ` +
        `${m('floorRedis')} µs; answers/s ÷ floor ${m('ratio')}`,
    );
  } finally {
    await Promise.all([door.stop(), floor.stop()]);
  }
} finally {
  await redis.stop();
  killAllChildren();
}
