// Figure: one `questions(first: 50)` page with 100,000 retained questions beside the same page
// with 1,000, for a few filter shapes (goal: the ratio stays near 1, at most 2). Each size has
// its own deployment (key prefix) on the run's Redis and its own server; both are seeded by the
// store's own create and claim scripts straight from this process (half the questions
// resolved, so history and every status index are populated), then pages are read through
// the real server, alternating sizes. While the pages run, the Redis SLOWLOG records every
// command; the longest list script call of each size is a row too (Redis stays responsive).
import { Redis } from 'ioredis';
import type { ClosedStatus } from '../../src/domain/question.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { scriptSha } from '../../src/store/redis/scripts.ts';
import { specOf } from '../../test/support/fixtures.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { dataOf, graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent } from '../lib/http.ts';
import { runPool } from '../lib/pool.ts';
import { type Instance, startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { median, round, summarize } from '../lib/stats.ts';

const LARGE = 100_000;
const SMALL = 1_000;
const PAGE = 50;
const SAMPLES = 15;
const WARMUP = 3;
const ASKERS = 10;
const FIELDS = 'id text format status askedBy createdAt';
const QUERY = `query Page($filter: QuestionFilter, $first: Int) {
  questions(filter: $filter, first: $first) { totalCount pageInfo { hasNextPage } edges { node { ${FIELDS} } } }
}`;

/** The operator sees everything; the agent's scope is what it asked (the askedBy index). */
const SHAPES: { name: string; role: 'operator' | 'agent'; filter: Record<string, unknown> }[] = [
  { name: 'no filter', role: 'operator', filter: {} },
  { name: 'status PENDING', role: 'operator', filter: { status: ['PENDING'] } },
  { name: 'status ANSWERED', role: 'operator', filter: { status: ['ANSWERED'] } },
  { name: 'askedBy (an agent, one asker in ten)', role: 'agent', filter: {} },
];
/** The bench agent's principal id (lib/graphql.ts PRINCIPALS). */
const AGENT_ID = 'bench-agent';

interface PageData {
  questions: { totalCount: number; edges: unknown[] };
}

/** `n` questions over the last day, one in two resolved (mostly answered), with no audit entries. */
async function seed(redisUrl: string, prefix: string, n: number): Promise<void> {
  const redis = new Redis(redisUrl, { enableAutoPipelining: true });
  const subscriber = new Redis(redisUrl);
  // The audit log off: 150,000 entries left for the large server's reaper to chain at its start
  // ran inside the pages (a 23 ms script and the server's CPU), which is not a page's work.
  const store = createRedisStore({ redis, subscriber, prefix, audit: false });
  const now = Date.now();
  const closed: ClosedStatus[] = ['ANSWERED', 'ANSWERED', 'CANCELLED', 'TIMED_OUT'];
  try {
    await runPool(n, 512, async (i) => {
      const createdAt = now - 86_400_000 + Math.floor((i * 86_000_000) / n);
      const spec = specOf({
        createdAt,
        timeoutAt: now + 86_400_000,
        askedBy: i % ASKERS === 3 ? AGENT_ID : `asker-${i % ASKERS}`,
      });
      const r = await store.create(spec, { maxPending: 10_000_000, retentionMs: 7 * 86_400_000 });
      if (r.kind !== 'created') throw new Error(`seed create: ${r.kind}`);
      if (i % 2 === 1) {
        const status = closed[Math.floor(i / 2) % closed.length]!;
        const c = await store.claim(spec.id, {
          status,
          answer: status === 'ANSWERED' ? true : null,
          answeredBy: 'bench',
          now,
          retentionMs: 7 * 86_400_000,
        });
        if (c.kind !== 'won') throw new Error(`seed claim: ${c.kind}`);
      }
    });
  } finally {
    await store.close();
    redis.disconnect();
    subscriber.disconnect();
  }
}

interface SlowEntry {
  micros: number;
  args: string[];
}

async function slowlog(redis: Redis): Promise<SlowEntry[]> {
  const raw = (await redis.call('SLOWLOG', 'GET', '-1')) as [number, number, number, string[]][];
  return raw.map((e) => ({ micros: Number(e[2]), args: e[3].map(String) }));
}

export async function listing(ctx: BenchContext): Promise<Section> {
  const sizes = [
    { n: SMALL, prefix: uniquePrefix('list-small') },
    { n: LARGE, prefix: uniquePrefix('list-large') },
  ];
  const t0 = Date.now();
  for (const s of sizes) await seed(ctx.redisUrl, s.prefix, s.n);
  const seedSeconds = (Date.now() - t0) / 1000;
  ctx.log(`  seeded ${SMALL} + ${LARGE} questions in ${seedSeconds.toFixed(1)} s`);

  const admin = new Redis(ctx.redisUrl);
  const servers: Instance[] = [];
  try {
    for (const s of sizes) {
      servers.push(await startInstance({ name: `listing-${s.n}`, redisUrl: ctx.redisUrl, prefix: s.prefix }));
    }
    const clients = servers.map((srv) => ({
      operator: graphqlClient(srv.url, 'operator', keepAliveAgent(1)),
      agent: graphqlClient(srv.url, 'agent', keepAliveAgent(1)),
    }));
    const [oldThreshold] = ((await admin.config('GET', 'slowlog-log-slower-than')) as string[]).slice(1);
    const [oldLen] = ((await admin.config('GET', 'slowlog-max-len')) as string[]).slice(1);
    await admin.config('SET', 'slowlog-max-len', '100000');
    await admin.config('SET', 'slowlog-log-slower-than', '0');
    await admin.slowlog('RESET');

    const times = SHAPES.map(() => sizes.map((): number[] => []));
    const counts = SHAPES.map(() => sizes.map(() => 0));
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      for (const [k, shape] of SHAPES.entries()) {
        // Alternating sizes, so both see the same conditions.
        for (const [j, client] of clients.entries()) {
          const reply = await client[shape.role].post(QUERY, { filter: shape.filter, first: PAGE });
          const page = dataOf<PageData>(reply).questions;
          if (page.edges.length !== PAGE)
            throw new Error(`${shape.name}: a short page (${page.edges.length})`);
          counts[k]![j] = page.totalCount;
          if (i >= WARMUP) times[k]![j]!.push(reply.endedAt - reply.sentAt);
        }
      }
    }
    const log = await slowlog(admin);
    await admin.config('SET', 'slowlog-log-slower-than', oldThreshold ?? '10000');
    await admin.config('SET', 'slowlog-max-len', oldLen ?? '128');
    // The store's own SHA: the script's source as sent (a copy here went stale when the audit switch was prepended).
    const sha = scriptSha('list');
    const longest = sizes.map((s) => {
      const mine = log.filter((e) => e.args[0]?.toLowerCase() === 'evalsha' && e.args[3] === s.prefix);
      const lists = mine.filter((e) => e.args[1] === sha);
      return {
        listMs: summarize(lists.map((e) => e.micros / 1000)),
        listMicros: Math.max(0, ...lists.map((e) => e.micros)),
        listCalls: lists.length,
        anyMicros: Math.max(0, ...mine.map((e) => e.micros)),
      };
    });
    if (longest.some((l) => l.listCalls === 0)) throw new Error('no list script call in the SLOWLOG');

    const figures = SHAPES.map((shape, k) => {
      const [small, large] = times[k]!;
      return figure({
        name: `page of ${PAGE}, ${shape.name}, ${LARGE.toLocaleString('en-US')} retained (median)`,
        value: round(median(large!)),
        unit: 'ms',
        floorName: `same page, ${SMALL.toLocaleString('en-US')} retained (median)`,
        floor: round(median(small!)),
        floorUnit: 'ms',
        parameters: {
          filter: shape.filter,
          first: PAGE,
          totalCount: { [SMALL]: counts[k]![0], [LARGE]: counts[k]![1] },
          samples: SAMPLES,
          warmup: WARMUP,
          largeMs: summarize(large!),
          smallMs: summarize(small!),
        },
      });
    });
    const worst = figures.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    figures.unshift(
      figure({ ...worst, name: `worst filter shape: ${worst.name}` }),
      figure({
        name: `longest list script call, ${LARGE.toLocaleString('en-US')} retained`,
        value: round(longest[1]!.listMicros / 1000),
        unit: 'ms',
        floorName: `same, ${SMALL.toLocaleString('en-US')} retained`,
        floor: round(longest[0]!.listMicros / 1000),
        floorUnit: 'ms',
        parameters: {
          listCalls: { [SMALL]: longest[0]!.listCalls, [LARGE]: longest[1]!.listCalls },
          listScriptMs: { [SMALL]: longest[0]!.listMs, [LARGE]: longest[1]!.listMs },
          longestAnyScriptMs: {
            [SMALL]: longest[0]!.anyMicros / 1000,
            [LARGE]: longest[1]!.anyMicros / 1000,
          },
          source: 'SLOWLOG with slowlog-log-slower-than 0 while the pages ran',
        },
      }),
    );
    return {
      title: `A questions page with ${LARGE.toLocaleString('en-US')} retained questions`,
      about:
        `Two deployments on the run's Redis, seeded through the store's scripts with ${SMALL.toLocaleString('en-US')} and ` +
        `${LARGE.toLocaleString('en-US')} questions (one in two resolved, ${ASKERS} askers; seeding took ${seedSeconds.toFixed(0)} s), ` +
        `each behind its own server. The value is the median of ${SAMPLES} \`questions(filter, first: ${PAGE})\` ` +
        `queries (fields \`${FIELDS}\`) against the large one, the floor the same query against the small one, ` +
        'alternating. The first row is the worst of the filter shapes below; the goal is a ratio of at most 2 ' +
        '(the page cost does not grow with what is retained). The script row is the longest `list` script call ' +
        'each deployment made while the pages ran, from the Redis SLOWLOG: it is how long one page blocks Redis.',
      figures,
      warnings: servers.flatMap(troubleLines),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    // Leave the run's Redis as small as it was for the figures after this one.
    for (const s of sizes) {
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${s.prefix}*`, 'COUNT', 5000);
        if (keys.length) await admin.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
    admin.disconnect();
  }
}
