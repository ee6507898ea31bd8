// The outbox: resume webhooks (API.md §12) delivered to a fast local receiver, against a bare
// fetch loop to the same receiver; then the same with one target in ten hung, where what counts
// is how long the healthy targets' deliveries wait.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ASK, type AskData, graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { pollUntil, runPool } from '../lib/pool.ts';
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

/** A server whose manifest names `targets` resume-webhook endpoints w0…; `hung` of them hang. */
async function serverFor(ctx: BenchContext, receiver: Instance, targets: number, hung: number, dir: string) {
  const lines = ['webhooks:'];
  for (let t = 0; t < targets; t++) {
    lines.push(`  w${t}:`, `    url: ${receiver.url}/${t < targets - hung ? `ok/w${t}` : `hang/w${t}`}`);
    lines.push('    secretEnv: BENCH_WEBHOOK_SECRET');
  }
  const manifest = path.join(dir, `manifest-${targets}-${hung}.yaml`);
  writeFileSync(manifest, `${lines.join('\n')}\n`);
  return startInstance({
    name: `outbox-${hung ? 'hung' : 'fast'}`,
    redisUrl: ctx.redisUrl,
    prefix: uniquePrefix('outbox'),
    env: {
      INTERACTIONS_MANIFEST: manifest,
      BENCH_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
    },
  });
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

/** The floor: PER_TARGET fetch loops POSTing QUESTIONS bodies of the same shape to the receiver. */
async function bareFetch(receiver: Instance): Promise<number> {
  const body = (i: number) =>
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
  const started = performance.now();
  await runPool(QUESTIONS, PER_TARGET, async (i) => {
    const res = await fetch(`${receiver.url}/ok/floor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': `msg_${i}` },
      body: body(i),
    });
    await res.arrayBuffer();
    if (res.status !== 204) throw new Error(`floor POST answered ${res.status}`);
  });
  return QUESTIONS / ((performance.now() - started) / 1000);
}

export async function outbox(ctx: BenchContext): Promise<Section> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-outbox-'));
  const receiver = await startFloorServer('webhook-receiver', 'webhook-receiver.ts');
  const trouble: string[] = [];
  try {
    // Fast: one endpoint, every delivery answered 204 at once.
    const fast = await serverFor(ctx, receiver, 1, 0, dir);
    let fastRate: number;
    let fastRun: Awaited<ReturnType<typeof askAndAnswer>>;
    try {
      fastRun = await askAndAnswer(fast, 1);
      const all = await pollUntil(async () => (await stats(receiver)).count >= QUESTIONS, 120_000, 50);
      const s = await stats(receiver);
      if (!all) throw new Error(`only ${s.count} of ${QUESTIONS} resume webhooks arrived`);
      const last = Math.max(...Object.values(s.arrivals));
      fastRate = QUESTIONS / ((last - fastRun.started) / 1000);
      trouble.push(...troubleLines(fast));
    } finally {
      await fast.stop();
    }
    await send(`${receiver.url}/reset`, { agent: keepAliveAgent(1), method: 'POST' });
    const floorRate = await bareFetch(receiver);
    await send(`${receiver.url}/reset`, { agent: keepAliveAgent(1), method: 'POST' });

    // One target in ten hung: how long do the healthy targets' deliveries wait?
    const hungServer = await serverFor(ctx, receiver, TARGETS, 1, dir);
    let delays: number[];
    let hungRun: Awaited<ReturnType<typeof askAndAnswer>>;
    try {
      hungRun = await askAndAnswer(hungServer, TARGETS);
      const healthy = hungRun.ids.filter((_, i) => hungRun.target[i]! < TARGETS - 1);
      const all = await pollUntil(async () => (await stats(receiver)).count >= healthy.length, 120_000, 50);
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
      answersPerRequest: ANSWERS_PER_REQUEST,
      answerConcurrency: ANSWER_CONCURRENCY,
      fastAnswerSeconds: round(fastRun.answerSeconds, 2),
      hungTargets: `1 of ${TARGETS}`,
      hungAnswerSeconds: round(hungRun.answerSeconds, 2),
      healthyDelayMs: summarize(delays),
    };
    return {
      title: 'Outbox: resume webhooks delivered',
      about:
        `${QUESTIONS.toLocaleString('en-US')} CONFIRM questions are asked with \`notify\` (holdSeconds 0), then ` +
        `answered as fast as the server takes answers (${ANSWERS_PER_REQUEST} per request, ${ANSWER_CONCURRENCY} ` +
        'requests in flight); each answer enqueues one signed `question.resolved` POST. The value is deliveries ' +
        'per second from the first answer sent until the last delivery arrived at a trivial node:http receiver ' +
        '(a separate process answering 204 at once); the floor is a bare `fetch` loop from the benchmark ' +
        `process POSTing as many bodies of the same shape to the same receiver, ${PER_TARGET} in flight (the ` +
        "outbox's own limit per target), in the same run (goal ≥ 0.7×). The value includes taking the answers " +
        'and signing each delivery. Then the same questions are spread over ten endpoints of which one never ' +
        'answers: the second row is the p99 delay of the healthy endpoints’ deliveries, from the answer sent ' +
        'to the delivery arrived, against the aim of 1 s.',
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
