// Figure 3b: the SNAPSHOT a subscriber gets on connect, with 1,000 questions pending: the time
// from opening the subscription until the SNAPSHOT event has fully arrived. The floor is a
// `questions(first: 200)` page of pending questions with the same fields: the same store read
// (the pending index), the same Question serialization and the same auth and Yoga pipeline,
// as much of that data as one query may carry. Chosen over a bare round trip, which would
// hide the data cost and turn the ratio into a measure of payload size.

import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import {
  ASK,
  type AskData,
  dataOf,
  graphqlBody,
  graphqlClient,
  headersFor,
  pendingCount,
} from '../lib/graphql.ts';
import { keepAliveAgent, socketPerRequestAgent } from '../lib/http.ts';
import { runPool } from '../lib/pool.ts';
import { profiled, startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { SseClient } from '../lib/sse.ts';
import { median, round, summarize } from '../lib/stats.ts';

const PENDING = 1000;
const SAMPLES = 20;
const WARMUP = 3;
const PAGE = 200;
/** What an inbox shows for each question. */
const FIELDS = 'id text format options status askedBy createdAt timeoutAt';
const SUBSCRIPTION = `subscription { pendingQuestions { type questions { ${FIELDS} } } }`;
const PAGE_QUERY = `query Page($first: Int) {
  questions(filter: { status: [PENDING] }, first: $first) { totalCount edges { node { ${FIELDS} } } }
}`;

interface PageData {
  questions: { totalCount: number; edges: unknown[] };
}

export async function snapshot(ctx: BenchContext): Promise<Section> {
  const server = await startInstance({
    name: 'snapshot',
    redisUrl: ctx.redisUrl,
    prefix: uniquePrefix('snap'),
  });
  try {
    const agent = graphqlClient(server.url, 'agent', keepAliveAgent(16));
    const operator = graphqlClient(server.url, 'operator', keepAliveAgent(1));
    await runPool(PENDING, 16, async (i) => {
      await agent.call<AskData>(ASK, {
        input: {
          text: `Pending question #${i}: approve the change?`,
          format: 'SELECT',
          options: ['yes', 'no'],
        },
        hold: 0,
      });
    });
    const pending = await pendingCount(operator);
    if (pending !== PENDING) throw new Error(`expected ${PENDING} pending questions, found ${pending}`);
    ctx.log(`  ${PENDING} questions pending`);

    const streams = socketPerRequestAgent();
    const snapshots: number[] = [];
    const pages: number[] = [];
    let bytes = { snapshot: 0, page: 0 };
    // Interleaved, so both see the same conditions.
    await profiled(server, async () => {
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        const sub = new SseClient(`${server.url}/graphql`, {
          agent: streams,
          method: 'POST',
          headers: headersFor('operator', 'text/event-stream'),
          body: graphqlBody(SUBSCRIPTION),
        });
        const first = await sub.next(() => true, 30_000);
        sub.close();
        const event = JSON.parse(first.data) as {
          data: { pendingQuestions: { type: string; questions: unknown[] } };
        };
        const { type, questions } = event.data.pendingQuestions;
        if (type !== 'SNAPSHOT' || questions.length !== PENDING) {
          throw new Error(`first event was ${type} with ${questions.length} questions`);
        }
        const page = await operator.post(PAGE_QUERY, { first: PAGE });
        if (dataOf<PageData>(page).questions.edges.length !== PAGE) throw new Error('short page');
        bytes = { snapshot: Buffer.byteLength(first.data), page: Buffer.byteLength(page.body) };
        if (i >= WARMUP) {
          snapshots.push(first.at - sub.sentAt);
          pages.push(page.endedAt - page.sentAt);
        }
      }
    });
    const parameters = {
      pending: PENDING,
      samples: SAMPLES,
      warmup: WARMUP,
      fields: FIELDS,
      snapshotEventBytes: bytes.snapshot,
      pageReplyBytes: bytes.page,
      floorQuery: `questions(filter: {status: [PENDING]}, first: ${PAGE})`,
      snapshotMs: summarize(snapshots),
      pageMs: summarize(pages),
    };
    return {
      title: 'SNAPSHOT with 1,000 pending questions',
      about:
        `With ${PENDING.toLocaleString('en-US')} questions pending, a subscriber opens \`pendingQuestions\` over GraphQL SSE; the ` +
        'value is the time from sending the subscription request until its SNAPSHOT event (all ' +
        `${PENDING.toLocaleString('en-US')} questions, fields \`${FIELDS}\`) has fully arrived, median of ${SAMPLES}. ` +
        `The floor is the median of a \`questions(filter: {status: [PENDING]}, first: ${PAGE})\` query with the same ` +
        'fields, interleaved with the subscriptions: the same store read of the pending index, the same ' +
        'serialization and the same auth and Yoga pipeline, but one fifth of the questions (200 is the largest ' +
        'page). It was chosen over a bare round trip, which would leave out the data and make the ratio a measure ' +
        'of payload size. If the cost is per question, the ratio is at most about 5 (five times the questions); ' +
        'above that, opening the stream or the snapshot path costs more than reading and serializing the data.',
      figures: [
        figure({
          name: `SNAPSHOT with ${PENDING.toLocaleString('en-US')} pending (median)`,
          value: round(median(snapshots)),
          unit: 'ms',
          floorName: `questions(first: ${PAGE}) page (median)`,
          floor: round(median(pages)),
          floorUnit: 'ms',
          parameters,
        }),
      ],
      warnings: troubleLines(server),
    };
  } finally {
    await server.stop();
  }
}
