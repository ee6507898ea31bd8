// Figure 3a: pendingQuestions fan-out. 1,000 (and 10,000) GraphQL-over-SSE subscribers (distinct
// connections: POST /graphql with Accept: text/event-stream) on one instance; one question is
// asked; the time from sending the ask until each subscriber has its ASKED event. The floor
// is the same 1,000 SSE connections on a trivial node:http server that writes the same bytes
// to all of them when told (bench/servers/sse-floor.ts).
import { randomUUID } from 'node:crypto';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ASK, dataOf, graphqlBody, graphqlClient, headersFor } from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { sleep } from '../lib/pool.ts';
import { cpuMs } from '../lib/process.ts';
import {
  type Instance,
  profiled,
  startFloorServer,
  startInstance,
  troubleLines,
  uniquePrefix,
} from '../lib/servers.ts';
import { SseClient } from '../lib/sse.ts';
import { median, percentile, round, summarize } from '../lib/stats.ts';

/** Opened this many at a time, each batch confirmed (SNAPSHOT or open) before the next. */
const BATCH = 100;
const ROUNDS = 7;
const WARMUP_ROUNDS = 2;
const SUBSCRIPTION = 'subscription { pendingQuestions { type questions { id text } } }';

interface Round {
  p50: number;
  p100: number;
}

/** Opens `count` streams in batches, each batch waited for with `ready`. */
async function openAll(count: number, open: () => SseClient, ready: (s: SseClient) => Promise<unknown>) {
  const streams: SseClient[] = [];
  for (let i = 0; i < count; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - i) }, open);
    streams.push(...batch);
    await Promise.all(batch.map(ready));
  }
  return streams;
}

/** One round: start listening on every stream, fire, and time each stream's matching event. */
async function timeRound(streams: SseClient[], marker: string, fire: () => Promise<number>): Promise<Round> {
  const arrivals = streams.map((s) => s.next((e) => e.data.includes(marker), 30_000).then((e) => e.at));
  const sentAt = await fire();
  const ms = (await Promise.all(arrivals)).map((at) => at - sentAt);
  return { p50: percentile(ms, 50), p100: Math.max(...ms) };
}

interface Measured {
  rounds: Round[];
  trouble: string[];
  /** CPU time the server process spent per timed round (a steadier view on a busy machine). */
  cpuMsPerRound: number;
}

/** Warm-up rounds, then ROUNDS timed ones; `fire` sends the marker and returns when it was sent. */
async function measureRounds(
  streams: SseClient[],
  pid: number,
  fire: (marker: string) => Promise<number>,
): Promise<{ rounds: Round[]; cpuMsPerRound: number }> {
  const rounds: Round[] = [];
  let cpu = 0;
  for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
    const marker = `fan-out #${r} ${randomUUID()}`;
    const before = cpuMs(pid);
    const round = await timeRound(streams, marker, () => fire(marker));
    if (r >= WARMUP_ROUNDS) {
      rounds.push(round);
      cpu += cpuMs(pid) - before;
    }
    await sleep(300);
  }
  return { rounds, cpuMsPerRound: round(cpu / ROUNDS, 1) };
}

async function interactionsRounds(ctx: BenchContext, subscribers: number): Promise<Measured> {
  const server: Instance = await startInstance({
    name: 'fanout',
    redisUrl: ctx.redisUrl,
    prefix: uniquePrefix('fanout'),
  });
  let streams: SseClient[] = [];
  try {
    const agent = socketPerRequestAgent();
    streams = await openAll(
      subscribers,
      () =>
        new SseClient(`${server.url}/graphql`, {
          agent,
          method: 'POST',
          headers: headersFor('operator', 'text/event-stream'),
          body: graphqlBody(SUBSCRIPTION),
        }),
      (s) => s.next((e) => e.data.includes('"SNAPSHOT"'), 30_000),
    );
    ctx.log(`  ${subscribers} GraphQL subscriptions have their SNAPSHOT`);
    const asker = graphqlClient(server.url, 'agent', keepAliveAgent(1));
    const measured = await profiled(server, () =>
      measureRounds(streams, server.pid, async (marker) => {
        const reply = await asker.post(ASK, { input: { text: marker, format: 'CONFIRM' }, hold: 0 });
        dataOf(reply);
        return reply.sentAt;
      }),
    );
    return { ...measured, trouble: troubleLines(server) };
  } catch (err) {
    // What the server logged says why (a client sees only an error id).
    const why = err instanceof Error ? err.message : String(err);
    throw new Error([why, ...troubleLines(server)].join('\n'));
  } finally {
    for (const s of streams) s.close();
    await server.stop();
  }
}

async function floorRounds(subscribers: number): Promise<Measured> {
  const server = await startFloorServer('sse-floor', 'sse-floor.ts');
  let streams: SseClient[] = [];
  try {
    const agent = socketPerRequestAgent();
    streams = await openAll(
      subscribers,
      () => new SseClient(`${server.url}/events`, { agent }),
      (s) => s.opened,
    );
    const fire = keepAliveAgent(1);
    const measured = await measureRounds(streams, server.pid, async (marker) => {
      // The very bytes a subscriber gets for an ASKED event, so both sides write the same size.
      const data = {
        data: { pendingQuestions: { type: 'ASKED', questions: [{ id: randomUUID(), text: marker }] } },
      };
      const reply = await send(`${server.url}/fire`, {
        agent: fire,
        method: 'POST',
        body: JSON.stringify(data),
      });
      if (reply.status !== 204) throw new Error(`sse-floor /fire answered ${reply.status}`);
      return reply.sentAt;
    });
    return { ...measured, trouble: troubleLines(server) };
  } finally {
    for (const s of streams) s.close();
    await server.stop();
  }
}

async function fanoutTo(ctx: BenchContext, subscribers: number): Promise<Section> {
  const n = subscribers.toLocaleString('en-US');
  const measured = await interactionsRounds(ctx, subscribers);
  const floor = await floorRounds(subscribers);
  const parameters = {
    subscribers,
    transport: 'GraphQL over SSE, distinct connections (POST /graphql, Accept: text/event-stream)',
    subscription: SUBSCRIPTION,
    rounds: ROUNDS,
    warmupRounds: WARMUP_ROUNDS,
    reported: 'median over rounds',
    p100Ms: summarize(measured.rounds.map((r) => r.p100)),
    p50Ms: summarize(measured.rounds.map((r) => r.p50)),
    floorP100Ms: summarize(floor.rounds.map((r) => r.p100)),
    floorP50Ms: summarize(floor.rounds.map((r) => r.p50)),
    serverCpuMsPerRound: measured.cpuMsPerRound,
    floorCpuMsPerRound: floor.cpuMsPerRound,
  };
  const row = (name: string, pick: (r: Round) => number) =>
    figure({
      name: `fan-out to ${n} subscribers ${name}`,
      value: round(median(measured.rounds.map(pick))),
      unit: 'ms',
      floorName: `trivial SSE server ${name}`,
      floor: round(median(floor.rounds.map(pick))),
      floorUnit: 'ms',
      parameters,
    });
  return {
    title: `pendingQuestions fan-out to ${n} subscribers`,
    about:
      `${n} operators subscribe to \`pendingQuestions\` over GraphQL SSE (distinct connections, ` +
      'one socket each) on one instance, and each has its SNAPSHOT. Then one question is asked and the clock ' +
      'runs from sending the `askUser` request until each subscriber has received its ASKED event: p100 is the ' +
      'last subscriber, p50 the median one; each is the median of ' +
      `${ROUNDS} rounds. The floor is the same ${n} SSE connections held by a ` +
      'trivial node:http server that writes the same bytes to all of them when told (no GraphQL, no store). ' +
      `Both times include the benchmark client taking in ${n} streams on the same machine, which is why the ` +
      'floor is measured the same way, right after. The ratio is the price of the real path on top of that: ' +
      'the ask itself (store and announce), the Redis message, and the feed, result and SSE frame of each ' +
      'subscriber (the GraphQL execution and its JSON are shared by subscribers who get the same result). ' +
      'The parameters also give the CPU time each server process spent per round, steadier than latency ' +
      'when the machine is busy.',
    figures: [row('p100', (r) => r.p100), row('p50', (r) => r.p50)],
    warnings: [...measured.trouble, ...floor.trouble],
  };
}

export function fanout(ctx: BenchContext): Promise<Section> {
  return fanoutTo(ctx, 1000);
}

/**
 * The same with 10,000 subscribers: the client holds 10,000 sockets (half its 20,000 open
 * files) and so does the server, each in its own process.
 */
export function fanout10k(ctx: BenchContext): Promise<Section> {
  return fanoutTo(ctx, 10_000);
}
