// The outbox: resume webhooks (API.md §12) delivered to a fast local receiver, against a bare
// fetch loop to the same receiver; then the same with one target in ten hung, where what counts
// is how long the healthy targets' deliveries wait. The first figure times deliveries only: the
// outbox is filled before the delivering instance starts (questions asked through another
// instance, answered through the store's own claim script, which enqueues each delivery), so
// asks and answers are not inside its window, as the floor has none either.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ASK, type AskData, graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { pollUntil, runPool } from '../lib/pool.ts';
import { startNode } from '../lib/process.ts';
import {
  type Instance,
  startFloorServer,
  startInstance,
  troubleLines,
  uniquePrefix,
} from '../lib/servers.ts';
import { percentile, round, summarize } from '../lib/stats.ts';

const QUESTIONS = Number(process.env.BENCH_OUTBOX_QUESTIONS) || 2000;
/** The outbox's own limit per target (DEFAULT_OUTBOX_PER_TARGET): the floor loop runs as many. */
const PER_TARGET = 8;
const TARGETS = 10;
const ANSWERS_PER_REQUEST = 15;
const ANSWER_CONCURRENCY = 8;

interface Stats {
  count: number;
  arrivals: Record<string, number>;
}

function answerMany(n: number): string {
  const vars = Array.from({ length: n }, (_, i) => `$i${i}: ID!`).join(', ');
  const fields = Array.from({ length: n }, (_, i) => `a${i}: answer(id: $i${i}, answer: true) { id }`).join(
    ' ',
  );
  return `mutation AnswerMany(${vars}) { ${fields} }`;
}

async function stats(receiver: Instance): Promise<Stats> {
  return JSON.parse((await send(`${receiver.url}/stats`, { agent: keepAliveAgent(1) })).body) as Stats;
}

/** Polls the receiver's count (not its arrivals: serializing those on every poll costs it CPU). */
async function arrived(receiver: Instance, n: number, timeoutMs: number): Promise<boolean> {
  const count = async () =>
    (
      JSON.parse((await send(`${receiver.url}/count`, { agent: keepAliveAgent(1) })).body) as {
        count: number;
      }
    ).count;
  return pollUntil(async () => (await count()) >= n, timeoutMs, 50);
}

/** Deliveries per second from the first arrival to the last (the receiver's clock). */
function rateOf(s: Stats): number {
  const times = Object.values(s.arrivals);
  const first = Math.min(...times);
  const last = Math.max(...times);
  return (times.length - 1) / ((last - first) / 1000);
}

interface Server {
  name: string;
  prefix: string;
  env: Record<string, string>;
}

/** A server whose manifest names `targets` resume-webhook endpoints w0…; `hung` of them hang. */
function serverFor(receiver: Instance, targets: number, hung: number, dir: string): Server {
  const lines = ['webhooks:'];
  for (let t = 0; t < targets; t++) {
    lines.push(`  w${t}:`, `    url: ${receiver.url}/${t < targets - hung ? `ok/w${t}` : `hang/w${t}`}`);
    lines.push('    secretEnv: BENCH_WEBHOOK_SECRET');
  }
  const manifest = path.join(dir, `manifest-${targets}-${hung}.yaml`);
  writeFileSync(manifest, `${lines.join('\n')}\n`);
  return {
    name: `outbox-${hung ? 'hung' : 'fast'}`,
    prefix: uniquePrefix('outbox'),
    env: {
      INTERACTIONS_MANIFEST: manifest,
      BENCH_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
    },
  };
}

function start(ctx: BenchContext, server: Server, role = ''): Promise<Instance> {
  return startInstance({
    name: server.name + role,
    redisUrl: ctx.redisUrl,
    prefix: server.prefix,
    env: server.env,
  });
}

/** Asks `n` CONFIRM questions that notify the webhook endpoint `w0` when resolved; their ids. */
export async function askResumeRuns(url: string, n: number): Promise<string[]> {
  const ids: string[] = new Array(n);
  const agent = graphqlClient(url, 'agent', keepAliveAgent(16));
  await runPool(n, 16, async (i) => {
    const d = await agent.call<AskData>(ASK, {
      input: { text: `Resume run #${i}?`, format: 'CONFIRM', notify: 'w0', metadata: { run: i } },
      hold: 0,
    });
    ids[i] = d.askUser.question.id;
  });
  return ids;
}

/**
 * Fills the outbox with QUESTIONS resume webhooks to w0 and delivers none: the questions are
 * asked through an instance that is stopped before any is answered, then answered through the
 * store's claim script (what every answer runs: it enqueues the delivery), from this process.
 * The audit log is off for these claims and the asks' entries are chained here: chaining is
 * not a delivery's work.
 */
async function fill(ctx: BenchContext, server: Server): Promise<void> {
  const asker = await start(ctx, server, '-asker');
  let ids: string[];
  try {
    ids = await askResumeRuns(asker.url, QUESTIONS);
  } finally {
    await asker.stop();
  }
  const redis = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
  const subscriber = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
  const store = createRedisStore({ redis, subscriber, prefix: server.prefix, audit: false });
  try {
    await runPool(QUESTIONS, 32, async (i) => {
      const claim = await store.claim(ids[i]!, {
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'bench-operator',
        now: Date.now(),
        retentionMs: 7 * 24 * 3600_000,
      });
      if (claim.kind !== 'won') throw new Error(`answering ${ids[i]} through the store: ${claim.kind}`);
    });
    const { items } = await store.outbox.stats(Date.now());
    if (items !== QUESTIONS) throw new Error(`the outbox holds ${items} items, not ${QUESTIONS}`);
    // The asks' audit entries are chained here, not by the delivering instance's reaper at its
    // start (its first trim chains what is unchained: 2,000 hashes, not a delivery's work).
    await store.audit.chain();
  } finally {
    await store.close();
    redis.disconnect();
    subscriber.disconnect();
  }
}

/**
 * Asks QUESTIONS questions (holdSeconds 0) spread over `targets` endpoints, then answers them
 * all as fast as the server takes answers; each answer enqueues one delivery.
 */
async function askAndAnswer(server: Instance, targets: number) {
  const agent = graphqlClient(server.url, 'agent', keepAliveAgent(16));
  const operator = graphqlClient(server.url, 'operator', keepAliveAgent(ANSWER_CONCURRENCY));
  const ids: string[] = new Array(QUESTIONS);
  const target: number[] = new Array(QUESTIONS);
  await runPool(QUESTIONS, 16, async (i) => {
    target[i] = i % targets;
    const d = await agent.call<AskData>(ASK, {
      input: { text: `Resume run #${i}?`, format: 'CONFIRM', notify: `w${target[i]}`, metadata: { run: i } },
      hold: 0,
    });
    ids[i] = d.askUser.question.id;
  });
  const answeredAt = new Map<string, number>();
  const started = performance.timeOrigin + performance.now();
  const groups = Math.ceil(QUESTIONS / ANSWERS_PER_REQUEST);
  await runPool(groups, ANSWER_CONCURRENCY, async (g) => {
    const group = ids.slice(g * ANSWERS_PER_REQUEST, (g + 1) * ANSWERS_PER_REQUEST);
    const sentAt = performance.timeOrigin + performance.now();
    await operator.call(answerMany(group.length), Object.fromEntries(group.map((id, i) => [`i${i}`, id])));
    for (const id of group) answeredAt.set(id, sentAt);
  });
  const answered = performance.timeOrigin + performance.now();
  return { ids, target, answeredAt, started, answerSeconds: (answered - started) / 1000 };
}

/** A body of a delivery's shape and size, for the floor's bare fetch loops. */
export const floorBody = (i: number): string =>
  JSON.stringify({
    type: 'question.resolved',
    question: {
      id: `floor-${i}`,
      status: 'ANSWERED',
      answer: true,
      metadata: { run: i },
      text: `Resume run #${i}?`,
    },
    receipt: 'x'.repeat(600),
  });

/**
 * The floor: PER_TARGET fetch loops POSTing QUESTIONS bodies of the same shape to the receiver,
 * timed as the value is, from the first arrival to the last; in a fresh process, as the
 * delivering instance is fresh (bench/servers/fetch-floor.ts).
 */
async function bareFetch(receiver: Instance): Promise<number> {
  const loop = startNode('fetch-floor', 'bench/servers/fetch-floor.ts', {
    RECEIVER_URL: receiver.url,
    COUNT: String(QUESTIONS),
    CONCURRENCY: String(PER_TARGET),
  });
  const code = await loop.exited;
  if (code !== 0) throw new Error(`the floor's fetch loop failed (${code}): ${loop.output().slice(-300)}`);
  return rateOf(await stats(receiver));
}

export async function outbox(ctx: BenchContext): Promise<Section> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-outbox-'));
  const receiver = await startFloorServer('webhook-receiver', 'webhook-receiver.ts');
  const trouble: string[] = [];
  try {
    // Fast: one endpoint, every delivery answered 204 at once; the outbox full before the
    // delivering instance starts.
    const fastServer = serverFor(receiver, 1, 0, dir);
    await fill(ctx, fastServer);
    const fast = await start(ctx, fastServer);
    let fastRate: number;
    try {
      const all = await arrived(receiver, QUESTIONS, 120_000);
      const s = await stats(receiver);
      if (!all) throw new Error(`only ${s.count} of ${QUESTIONS} resume webhooks arrived`);
      fastRate = rateOf(s);
      trouble.push(...troubleLines(fast));
    } finally {
      await fast.stop();
    }
    await send(`${receiver.url}/reset`, { agent: keepAliveAgent(1), method: 'POST' });
    const floorRate = await bareFetch(receiver);
    await send(`${receiver.url}/reset`, { agent: keepAliveAgent(1), method: 'POST' });

    // One target in ten hung: how long do the healthy targets' deliveries wait?
    const hungServer = await start(ctx, serverFor(receiver, TARGETS, 1, dir));
    let delays: number[];
    let hungRun: Awaited<ReturnType<typeof askAndAnswer>>;
    try {
      hungRun = await askAndAnswer(hungServer, TARGETS);
      const healthy = hungRun.ids.filter((_, i) => hungRun.target[i]! < TARGETS - 1);
      const all = await arrived(receiver, healthy.length, 120_000);
      const s = await stats(receiver);
      if (!all) throw new Error(`only ${s.count} of ${healthy.length} healthy webhooks arrived`);
      delays = healthy.map((id) => s.arrivals[id]! - hungRun.answeredAt.get(id)!);
      trouble.push(...troubleLines(hungServer).filter((l) => !l.includes('hang')));
    } finally {
      await hungServer.stop();
    }

    const parameters = {
      questions: QUESTIONS,
      store: 'redis',
      receiver: 'bench/servers/webhook-receiver.ts (node:http, 204 at once)',
      floorLoops: PER_TARGET,
      fastFilledBefore: 'asked through another instance, answered through the store (audit off)',
      answersPerRequest: ANSWERS_PER_REQUEST,
      answerConcurrency: ANSWER_CONCURRENCY,
      hungTargets: `1 of ${TARGETS}`,
      hungAnswerSeconds: round(hungRun.answerSeconds, 2),
      healthyDelayMs: summarize(delays),
    };
    return {
      title: 'Outbox: resume webhooks delivered',
      about:
        `${QUESTIONS.toLocaleString('en-US')} CONFIRM questions are asked with \`notify\` (holdSeconds 0) through ` +
        'one instance, which is then stopped, and answered through the store’s claim script (what every answer ' +
        'runs; it enqueues one `question.resolved` delivery each), so the outbox is full before the delivering ' +
        'instance starts. The value is its deliveries per second from the first arrival at a trivial node:http ' +
        'receiver (a separate process answering 204 at once) to the last: each delivery is a lease from Redis, ' +
        'a read of the question, the decision receipt and the Standard Webhooks signature, the POST, and the ' +
        'acknowledgement in Redis. The floor is a bare `fetch` loop in a fresh Node process (as the delivering instance is fresh) POSTing as many ' +
        `bodies of the same shape to the same receiver, ${PER_TARGET} in flight (the outbox's own limit per ` +
        'target), timed the same way in the same run (goal ≥ 0.7×). Then questions spread over ten endpoints, ' +
        'of which one never answers, are asked and answered through the server as fast as it takes answers ' +
        `(${ANSWERS_PER_REQUEST} per request, ${ANSWER_CONCURRENCY} requests in flight): the second row is the ` +
        'p99 delay of the healthy endpoints’ deliveries, from the answer sent to the delivery arrived, against ' +
        'the aim of 1 s.',
      figures: [
        figure({
          name: 'outbox deliveries/s',
          value: round(fastRate, 0),
          unit: 'deliveries/s',
          floorName: 'bare fetch loop, same receiver',
          floor: round(floorRate, 0),
          floorUnit: 'requests/s',
          parameters,
        }),
        figure({
          name: 'outbox, 1 target in 10 hung: healthy delivery delay p99',
          value: round(percentile(delays, 99)),
          unit: 'ms',
          floorName: 'aim',
          floor: 1000,
          floorUnit: 'ms',
          parameters,
        }),
      ],
      warnings: trouble,
    };
  } finally {
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
