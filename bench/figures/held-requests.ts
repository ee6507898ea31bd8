// Figure 2: how many askUser calls one instance can hold at once, and what each costs in
// resident memory. The aim is as many as this machine's open-files limit lets one process
// hold (20,000 here: 18,000 held); bench/README.md says what 50,000 would take. The floor is the resident memory of an idle open connection to the same
// server program: a held askUser is, at the least, an open connection, so the ratio says how
// much the hold itself adds on top (request, GraphQL execution, waiter, timer).
import net from 'node:net';
import { Redis } from 'ioredis';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ASK, type AskData, graphqlBody, graphqlClient, headersFor, pendingIds } from '../lib/graphql.ts';
import { warmUpServer } from '../lib/held-load.ts';
import { keepAliveAgent, type Reply, send, socketPerRequestAgent } from '../lib/http.ts';
import { pollUntil, runPool, sleep, within } from '../lib/pool.ts';
import { openFilesLimit, rssKiB } from '../lib/process.ts';
import {
  collectGarbage,
  type GcMemory,
  type Instance,
  startFloorServer,
  startInstance,
  troubleLines,
  uniquePrefix,
} from '../lib/servers.ts';
import { median, round } from '../lib/stats.ts';

const AIM = 18_000;
/** Room for everything else a process holds open (Redis, pipes, the runner's other sockets). */
const SPARE_FILES = 1500;
const HOLD_SECONDS = 120;
/** Opened this many at a time, each batch confirmed stored before the next (listen backlog is 511). */
const BATCH = 500;
const ANSWER_CONCURRENCY = 16;
/** Answers per GraphQL request (aliases; the server allows 15), so the release stays short. */
const ANSWERS_PER_REQUEST = 15;

/** One mutation answering `n` questions, as aliases a0…a(n−1). */
function answerMany(n: number): string {
  const vars = Array.from({ length: n }, (_, i) => `$i${i}: ID!`).join(', ');
  const fields = Array.from({ length: n }, (_, i) => `a${i}: answer(id: $i${i}, answer: true) { id }`).join(
    ' ',
  );
  return `mutation AnswerMany(${vars}) { ${fields} }`;
}
const GROUP = 'held';
/** Pages of the \`questions\` listing timed through the API (the ids themselves are read from Redis). */
const TIMED_PAGES = 5;

async function medianRss(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 3; i++) {
    readings.push(rssKiB(pid));
    await sleep(300);
  }
  return median(readings);
}

/**
 * RSS as found (after a short settle), then after a full GC. The figure uses the second: how
 * much garbage waits for the next collection depends on timing and would make runs disagree.
 */
async function readRss(server: Instance): Promise<{ found: number; live: number; gc: GcMemory | null }> {
  await sleep(1000);
  const found = await medianRss(server.pid);
  const gc = await collectGarbage(server);
  return { found, live: await medianRss(server.pid), gc };
}

/** How a held call ended: its AskResult status, or why there is none. */
function outcomeOf(r: Reply | null): string {
  if (r === null) return 'connection error';
  if (r.status !== 200) return `HTTP ${r.status}`;
  const body = JSON.parse(r.body) as { data?: AskData };
  return body.data?.askUser.status ?? 'GraphQL error';
}

function tally(outcomes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

async function holdMany(ctx: BenchContext, target: number) {
  const prefix = uniquePrefix('held');
  const server = await startInstance({ name: 'held', redisUrl: ctx.redisUrl, prefix, gcOnSignal: true });
  // Counting and listing 18,000 pending questions through the API scans them all each time:
  // the ramp counts and the release lists straight from the pending index.
  const redis = new Redis(ctx.redisUrl);
  const pendingCount = async (): Promise<number> => redis.zcard(`${prefix}pending`);
  try {
    await warmUpServer(server);
    const rssBefore = await readRss(server);
    const operator = graphqlClient(server.url, 'operator', keepAliveAgent(ANSWER_CONCURRENCY));
    const holds = socketPerRequestAgent();
    let releasing = false;
    let returnedEarly = 0;
    const replies: Promise<Reply | null>[] = [];
    const rampStart = performance.now();
    for (let sent = 0; sent < target; ) {
      const n = Math.min(BATCH, target - sent);
      for (let i = sent; i < sent + n; i++) {
        const body = graphqlBody(ASK, {
          input: { text: `held #${i}`, format: 'CONFIRM', groupId: GROUP, timeoutSeconds: 600 },
          hold: HOLD_SECONDS,
        });
        const reply = send(`${server.url}/graphql`, {
          agent: holds,
          method: 'POST',
          headers: headersFor('agent'),
          body,
        }).catch(() => null);
        replies.push(
          reply.then((r) => {
            if (!releasing) returnedEarly++;
            return r;
          }),
        );
      }
      sent += n;
      // Counting pending questions scans them all in Redis: poll gently.
      const stored = await pollUntil(async () => (await pendingCount()) >= sent, 60_000, 100);
      if (!stored) throw new Error(`only ${await pendingCount()} of ${sent} asks were stored`);
    }
    const rampSeconds = (performance.now() - rampStart) / 1000;
    ctx.log(`  ${target} askUser calls sent and stored in ${rampSeconds.toFixed(1)} s`);
    const rssHeld = await readRss(server);
    const held = Math.min(await pendingCount(), target) - returnedEarly;

    // Release: answer every question; every held call must come back ANSWERED.
    releasing = true;
    const listStart = performance.now();
    const listed = await pendingIds(operator, GROUP, TIMED_PAGES);
    const listSeconds = (performance.now() - listStart) / 1000;
    // Oldest first: the first calls sent are the nearest to the end of their hold.
    const ids = await redis.zrange(`${prefix}pending`, 0, -1);
    const answerStart = performance.now();
    const groups = Math.ceil(ids.length / ANSWERS_PER_REQUEST);
    await runPool(groups, ANSWER_CONCURRENCY, async (g) => {
      const group = ids.slice(g * ANSWERS_PER_REQUEST, (g + 1) * ANSWERS_PER_REQUEST);
      await operator.call(answerMany(group.length), Object.fromEntries(group.map((id, i) => [`i${i}`, id])));
    });
    const results = await within(Promise.all(replies), 120_000, 'held askUser calls to return');
    const releaseEnd = performance.now();
    const outcomes = tally(results.map(outcomeOf));
    return {
      held,
      returnedEarly,
      rssBefore,
      rssHeld,
      rampSeconds,
      listSeconds,
      listPages: Math.ceil(listed.length / 200),
      answerSeconds: (releaseEnd - answerStart) / 1000,
      returned: results.filter((r) => r !== null).length,
      outcomes,
      answeredOk: outcomes.ANSWERED ?? 0,
      trouble: troubleLines(server),
    };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

/** (after − before) ÷ count, in KiB, of one field of the memory printed after a full GC. */
function perKiB(before: GcMemory | null, after: GcMemory | null, key: keyof GcMemory, count: number) {
  return before && after ? round((after[key] - before[key]) / 1024 / count, 2) : null;
}

/** The floor: the same server program with `count` idle connections that never send a byte. */
async function idleConnections(ctx: BenchContext, count: number) {
  const server = await startInstance({
    name: 'idle',
    redisUrl: ctx.redisUrl,
    prefix: uniquePrefix('idle'),
    gcOnSignal: true,
  });
  const sockets: net.Socket[] = [];
  try {
    await warmUpServer(server);
    const rssBefore = await readRss(server);
    const port = Number(new URL(server.url).port);
    let closedEarly = 0;
    for (let opened = 0; opened < count; ) {
      const n = Math.min(BATCH, count - opened);
      const batch = Array.from(
        { length: n },
        () =>
          new Promise<void>((resolve, reject) => {
            const s = net.connect(port, '127.0.0.1', () => resolve());
            s.once('error', reject);
            s.once('close', () => closedEarly++);
            sockets.push(s);
          }),
      );
      await Promise.all(batch);
      opened += n;
    }
    const rssIdle = await readRss(server);
    return { rssBefore, rssIdle, open: count - closedEarly, trouble: troubleLines(server) };
  } finally {
    for (const s of sockets) s.destroy();
    await server.stop();
  }
}

/** Sends `n` askUser bodies to `url`, each on its own connection, as holdMany does. */
function sendHolds(url: string, agent: ReturnType<typeof socketPerRequestAgent>, from: number, n: number) {
  return Array.from({ length: n }, (_, k) =>
    send(`${url}/graphql`, {
      agent,
      method: 'POST',
      headers: headersFor('agent'),
      body: graphqlBody(ASK, {
        input: { text: `held #${from + k}`, format: 'CONFIRM', groupId: GROUP, timeoutSeconds: 600 },
        hold: HOLD_SECONDS,
      }),
    }).catch(() => null),
  );
}

/**
 * The fairer floor: a trivial node:http server (bench/servers/held-floor.ts) holding the same
 * number of the same requests from the same client, in the same batches; what holding a request
 * open costs before anything of ours.
 */
async function heldFloor(count: number) {
  const server = await startFloorServer('held-floor', 'held-floor.ts', {}, true);
  const agent = socketPerRequestAgent();
  const control = keepAliveAgent(2);
  const heldNow = async () => Number((await send(`${server.url}/count`, { agent: control })).body);
  const release = () => send(`${server.url}/release`, { agent: control, method: 'POST' });
  try {
    // The same amount of warm-up traffic as the real server's: 200 holds, released.
    const warm = sendHolds(server.url, agent, 0, 200);
    await pollUntil(async () => (await heldNow()) >= 200, 30_000, 50);
    await release();
    await Promise.all(warm);
    const rssBefore = await readRss(server);
    const replies: Promise<Reply | null>[] = [];
    for (let sent = 0; sent < count; ) {
      const n = Math.min(BATCH, count - sent);
      replies.push(...sendHolds(server.url, agent, sent, n));
      sent += n;
      const stored = await pollUntil(async () => (await heldNow()) >= sent, 60_000, 100);
      if (!stored) throw new Error(`the floor server holds only ${await heldNow()} of ${sent}`);
    }
    const rssHeld = await readRss(server);
    const held = await heldNow();
    await release();
    const results = await within(Promise.all(replies), 120_000, 'held floor requests to return');
    return {
      held,
      rssBefore,
      rssHeld,
      answeredOk: results.filter((r) => r?.body.includes('ANSWERED')).length,
      trouble: troubleLines(server),
    };
  } finally {
    await server.stop();
  }
}

export async function heldRequests(ctx: BenchContext): Promise<Section> {
  const filesLimit = openFilesLimit();
  // BENCH_HELD=<n>: a smaller trial run of this figure (the record is always made at the aim).
  const target = Math.min(Number(process.env.BENCH_HELD) || AIM, filesLimit - SPARE_FILES);
  const h = await holdMany(ctx, target);
  ctx.log(`  held ${h.held}; ${h.answeredOk}/${target} returned ANSWERED after release`);
  const idle = await idleConnections(ctx, target);
  ctx.log(`  ${idle.open} idle connections measured`);
  const floor = await heldFloor(target);
  ctx.log(`  floor held ${floor.held}; ${floor.answeredOk}/${target} released`);

  const warnings = [...h.trouble, ...idle.trouble, ...floor.trouble];
  if (floor.held !== target || floor.answeredOk !== target)
    warnings.push(`the held floor held ${floor.held} and released ${floor.answeredOk} of ${target}`);
  if (target < AIM && !process.env.BENCH_HELD)
    warnings.push(`the open-files limit (${filesLimit}) allowed only ${target} held calls`);
  if (h.answeredOk !== target) {
    warnings.push(
      `${h.answeredOk} of ${target} held calls returned ANSWERED (${JSON.stringify(h.outcomes)})`,
    );
  }
  if (idle.open !== target) warnings.push(`only ${idle.open} of ${target} idle connections stayed open`);

  const perHeld = (h.rssHeld.live - h.rssBefore.live) / h.held;
  const perIdle = (idle.rssIdle.live - idle.rssBefore.live) / idle.open;
  const perFloorHeld = (floor.rssHeld.live - floor.rssBefore.live) / floor.held;
  const parameters = {
    aim: AIM,
    target,
    openFilesLimit: filesLimit,
    holdSeconds: HOLD_SECONDS,
    batch: BATCH,
    store: 'redis',
    held: h.held,
    returnedBeforeRelease: h.returnedEarly,
    returnedAfterRelease: h.returned,
    outcomesAfterRelease: h.outcomes,
    rampSeconds: round(h.rampSeconds, 1),
    listIdsSeconds: round(h.listSeconds, 1),
    // Each page of `questions` scans the whole pending index in Redis (filter before paging);
    // the first TIMED_PAGES pages are timed, the ids to answer are read from the index itself.
    msPerQuestionsPage: round((h.listSeconds * 1000) / h.listPages, 1),
    answerAllSeconds: round(h.answerSeconds, 1),
    answerConcurrency: ANSWER_CONCURRENCY,
    answersPerRequest: ANSWERS_PER_REQUEST,
    rssReadings: 'VmRSS in KiB, median of 3; "live" after a full GC (the figure), "found" before it',
    rssBeforeHeldKiB: h.rssBefore,
    rssWhileHeldKiB: h.rssHeld,
    rssBeforeIdleKiB: idle.rssBefore,
    rssWithIdleKiB: idle.rssIdle,
    perHeldAsFoundKiB: round((h.rssHeld.found - h.rssBefore.found) / h.held, 2),
    perIdleAsFoundKiB: round((idle.rssIdle.found - idle.rssBefore.found) / idle.open, 2),
    // From process.memoryUsage() after the same full GCs: the JS heap in use, the heap V8 keeps
    // (used + free room in its pages), and what lies outside it (sockets, parsers, malloc).
    perHeldHeapUsedKiB: perKiB(h.rssBefore.gc, h.rssHeld.gc, 'heapUsed', h.held),
    perHeldHeapTotalKiB: perKiB(h.rssBefore.gc, h.rssHeld.gc, 'heapTotal', h.held),
    perIdleHeapUsedKiB: perKiB(idle.rssBefore.gc, idle.rssIdle.gc, 'heapUsed', idle.open),
    perIdleHeapTotalKiB: perKiB(idle.rssBefore.gc, idle.rssIdle.gc, 'heapTotal', idle.open),
    idleConnections: idle.open,
    rssBeforeHeldFloorKiB: floor.rssBefore,
    rssWhileHeldFloorKiB: floor.rssHeld,
    perHeldFloorHeapUsedKiB: perKiB(floor.rssBefore.gc, floor.rssHeld.gc, 'heapUsed', floor.held),
    perHeldFloorHeapTotalKiB: perKiB(floor.rssBefore.gc, floor.rssHeld.gc, 'heapTotal', floor.held),
    heldFloorRequests: floor.held,
  };
  return {
    title: 'Concurrent held askUser calls and their memory',
    about:
      `One instance is sent ${target.toLocaleString('en-US')} \`askUser\` calls (holdSeconds ${HOLD_SECONDS}), ` +
      `each on its own connection, in batches of ${BATCH} that are confirmed stored before the next; "held" ` +
      'counts the calls whose question was pending while none had returned. Memory per held call is (VmRSS of ' +
      'the server while all are held − VmRSS before, after the same warm-up) ÷ held, each reading taken after a ' +
      'full garbage collection (a bench-only preload runs `gc()` on SIGUSR2; the readings before it are in ' +
      'results.json). Then every question is ' +
      'answered and every call must come back ANSWERED. The held-count row is compared with the aim of ' +
      `${AIM.toLocaleString('en-US')}, what one process can hold under this machine's hard open-files limit ` +
      'of 20,000 (1.00× = reached; bench/README.md says what 50,000 would take). The memory floor is the same server program, started fresh and warmed up the ' +
      'same way, holding the same number of idle TCP connections that never send a byte: what a connection ' +
      'alone costs; it is kept for orientation. The fairer floor (the first memory row) is a trivial node:http ' +
      'server (bench/servers/held-floor.ts) sent the same requests by the same client in the same batches, ' +
      'which reads and parses each body and keeps its response open beside a timer for the hold: what holding ' +
      'a request costs in Node before anything of ours (goal ≤ 1.5×). The idle-connection ratio says how many ' +
      'idle connections one held call weighs; what it adds is ' +
      "Node's and Fastify's request and response objects, a small note of the hold (the GraphQL execution " +
      "is over while it waits: see bench/README.md) and the engine's waiter and timer.",
    figures: [
      figure({
        name: 'askUser calls held at once',
        value: h.held,
        unit: 'requests',
        floorName: 'aim',
        floor: AIM,
        floorUnit: 'requests',
        parameters,
      }),
      figure({
        name: 'RSS per held askUser',
        value: round(perHeld, 2),
        unit: 'KiB',
        floorName: 'RSS per request held by a trivial node:http server',
        floor: round(perFloorHeld, 2),
        floorUnit: 'KiB',
        parameters,
      }),
      figure({
        name: 'RSS per held askUser (orientation)',
        value: round(perHeld, 2),
        unit: 'KiB',
        floorName: 'RSS per idle connection',
        floor: round(perIdle, 2),
        floorUnit: 'KiB',
        parameters,
      }),
    ],
    warnings,
  };
}
