// Figure 4: answers per second through the public callback door (POST
// /api/interactions/callback/{ticket}) on EXTERNAL questions asked beforehand, with bounded
// concurrency. The floor is the same HTTP stack (Fastify) answering a route that does one Redis
// GET and one SET (bench/servers/fastify-floor.ts), driven exactly the same way. Rounds
// alternate between the two so that load from elsewhere falls on both.

import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ASK, type AskData, graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { runPool } from '../lib/pool.ts';
import {
  type Instance,
  startFloorServer,
  startInstance,
  troubleLines,
  uniquePrefix,
} from '../lib/servers.ts';
import { median, round } from '../lib/stats.ts';

/** Shared with the Slack-door figure, which is driven at the same concurrency. */
export const CONCURRENCY = 32;
const PER_ROUND = 1500;
const ROUNDS = 5;
/** Both servers speed up over their first few thousand requests (JIT): rounds start after that. */
const WARMUP = 2000;
const BODY = JSON.stringify({ approved: true, signer: 'bench', document: 'contract-42' });

/** POSTs the body to every path with at most CONCURRENCY in flight; answers per second. */
export async function drive(baseUrl: string, paths: string[]): Promise<number> {
  const agent = keepAliveAgent(CONCURRENCY);
  const started = performance.now();
  await runPool(paths.length, CONCURRENCY, async (i) => {
    const r = await send(`${baseUrl}${paths[i]}`, {
      agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
    });
    if (r.status !== 200 || !r.body.includes('"answered"')) {
      throw new Error(`${paths[i]!.slice(0, 40)}…: ${r.status} ${r.body.slice(0, 200)}`);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return paths.length / seconds;
}

/** Asks `count` EXTERNAL questions (holdSeconds 0) and returns their callback paths. */
export async function askExternals(server: Instance, count: number): Promise<string[]> {
  const agent = graphqlClient(server.url, 'agent', keepAliveAgent(CONCURRENCY));
  const paths: string[] = new Array(count);
  await runPool(count, CONCURRENCY, async (i) => {
    const d = await agent.call<AskData>(ASK, {
      input: {
        text: `Sign contract #${i}`,
        format: 'EXTERNAL',
        link: 'https://sign.example/doc?cb={callback_url}',
      },
      hold: 0,
    });
    paths[i] = new URL(d.askUser.callbackUrl!).pathname;
  });
  return paths;
}

export async function callbackDoor(ctx: BenchContext): Promise<Section> {
  const servers: Instance[] = [];
  try {
    const door = await startInstance({
      name: 'callback',
      redisUrl: ctx.redisUrl,
      prefix: uniquePrefix('callback'),
      // The public door's rate limit (per client address) would cap the run, not the server.
      env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000000' },
    });
    servers.push(door);
    const floor = await startFloorServer('fastify-floor', 'fastify-floor.ts', {
      BENCH_REDIS_URL: ctx.redisUrl,
    });
    servers.push(floor);

    const paths = await askExternals(door, WARMUP + ROUNDS * PER_ROUND);
    ctx.log(`  ${paths.length} EXTERNAL questions asked`);
    const floorPaths = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `/answer/k${from + i}`);

    await drive(door.url, paths.slice(0, WARMUP));
    await drive(floor.url, floorPaths(0, WARMUP));
    const doorRates: number[] = [];
    const floorRates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const from = WARMUP + r * PER_ROUND;
      doorRates.push(await drive(door.url, paths.slice(from, from + PER_ROUND)));
      floorRates.push(await drive(floor.url, floorPaths(from, PER_ROUND)));
    }
    const parameters = {
      concurrency: CONCURRENCY,
      answersPerRound: PER_ROUND,
      rounds: ROUNDS,
      warmup: WARMUP,
      reported: 'median over rounds',
      body: BODY,
      rateLimitPerMinute: 100000000,
      doorPerSecond: doorRates.map((x) => round(x, 0)),
      floorPerSecond: floorRates.map((x) => round(x, 0)),
    };
    return {
      title: 'Callback-door answers per second',
      about:
        `EXTERNAL questions are asked beforehand; then their callback URLs are POSTed a JSON object body with at ` +
        `most ${CONCURRENCY} requests in flight over kept-alive connections, ${PER_ROUND.toLocaleString('en-US')} ` +
        `answers a round, ${ROUNDS} rounds; the value is the median round's answers per second (every one must ` +
        'be 200 `answered`), after ' +
        `${WARMUP.toLocaleString('en-US')} warm-up answers to each server. ` +
        'The floor is Fastify answering a route that does one Redis GET and one SET, driven ' +
        'the same way in alternating rounds. The door does more by design: the payload checks, the ticket hash ' +
        'and one script that counts the rate limit, finds the ticket and claims the question (publishing the ' +
        'answer). Here the ratio is a fraction (value ÷ floor, higher is better): the share of bare ' +
        'Fastify-plus-Redis throughput the door keeps.',
      figures: [
        figure({
          name: 'callback-door answers/s',
          value: round(median(doorRates), 0),
          unit: 'answers/s',
          floorName: 'Fastify GET+SET route',
          floor: round(median(floorRates), 0),
          floorUnit: 'requests/s',
          parameters,
        }),
      ],
      warnings: servers.flatMap(troubleLines),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}
