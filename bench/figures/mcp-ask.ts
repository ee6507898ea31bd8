// MCP ask_user → answer → tool result, beside the GraphQL held askUser on the same instance.
// An agent on MCP (the official client, Streamable HTTP on /mcp) and one on GraphQL each ask a
// CONFIRM question that waits for its answer; the operator answers it through GraphQL once the
// inbox shows it. The value is the time from writing the answer until the MCP tool result has
// arrived; the floor the same for the GraphQL askUser response, alternating in one loop.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import {
  ANSWER,
  ASK_WITH_RECEIPT,
  type AskData,
  dataOf,
  graphqlBody,
  graphqlClient,
  headersFor,
  KEYS,
} from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { sleep } from '../lib/pool.ts';
import { startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { SseClient } from '../lib/sse.ts';
import { percentile, round, summarize } from '../lib/stats.ts';

const WARMUP = 20;
/** Each of the two paths, alternating. */
const ITERATIONS = Number(process.env.BENCH_MCP_ITERATIONS) || 150;
/** The question is registered and its waiter armed before it is answered (as in the resume figure). */
const SETTLE_MS = 40;

export async function mcpAsk(ctx: BenchContext): Promise<Section> {
  const server = await startInstance({ name: 'mcp', redisUrl: ctx.redisUrl, prefix: uniquePrefix('mcp') });
  const client = new Client({ name: 'tai-bench', version: '1.0.0' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
        requestInit: { headers: { authorization: `Bearer ${KEYS.agent}` } },
      }),
    );
    ctx.log('  MCP client connected');
    const asker = keepAliveAgent(2);
    const answerer = graphqlClient(server.url, 'operator', keepAliveAgent(2));
    const inbox = new SseClient(`${server.url}/api/interactions/stream`, {
      agent: socketPerRequestAgent(),
      headers: headersFor('operator', 'text/event-stream'),
    });
    await inbox.next((e) => e.event === 'interaction.ready', 10_000);

    /** Asks through `ask`, answers once the inbox shows it; ms from the answer to the result. */
    const round1 = async (
      text: string,
      ask: () => Promise<number>,
    ): Promise<{ resume: number; total: number }> => {
      const added = inbox.next((e) => e.event === 'interaction.add' && e.data.includes(`"${text}"`), 10_000);
      const started = performance.now();
      const done = ask();
      const { id } = JSON.parse((await added).data) as { id: string };
      await sleep(SETTLE_MS);
      const answered = answerer.post(ANSWER, { id, answer: true });
      const [endedAt, answerReply] = await Promise.all([done, answered]);
      dataOf(answerReply);
      return { resume: endedAt - answerReply.sentAt, total: endedAt - started - SETTLE_MS };
    };
    const viaMcp = (text: string) =>
      round1(text, async () => {
        const r = await client.callTool({
          name: 'ask_user',
          arguments: { text, format: 'CONFIRM', wait_seconds: 30 },
        });
        const status = (r.structuredContent as { status?: string } | undefined)?.status;
        if (r.isError || status !== 'ANSWERED') throw new Error(`ask_user returned ${JSON.stringify(r)}`);
        return performance.now();
      });
    const viaGraphql = (text: string) =>
      round1(text, async () => {
        const reply = await send(`${server.url}/graphql`, {
          agent: asker,
          method: 'POST',
          headers: headersFor('agent'),
          body: graphqlBody(ASK_WITH_RECEIPT, { input: { text, format: 'CONFIRM' }, hold: 30 }),
        });
        const status = dataOf<AskData>(reply).askUser.status;
        if (status !== 'ANSWERED') throw new Error(`held askUser returned ${status}`);
        return reply.endedAt;
      });

    const mcp: { resume: number; total: number }[] = [];
    const gql: { resume: number; total: number }[] = [];
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const m = await viaMcp(`bench mcp #${i}`);
      const g = await viaGraphql(`bench graphql #${i}`);
      if (i === 0) ctx.log(`  first pair: MCP ${m.resume.toFixed(1)} ms, GraphQL ${g.resume.toFixed(1)} ms`);
      if (i >= WARMUP) {
        mcp.push(m);
        gql.push(g);
      }
    }
    inbox.close();
    const parameters = {
      iterations: ITERATIONS,
      warmup: WARMUP,
      settleMsBeforeAnswer: SETTLE_MS,
      store: 'redis',
      client: '@modelcontextprotocol/client, Streamable HTTP, one session',
      mcpAnswerToResultMs: summarize(mcp.map((s) => s.resume)),
      graphqlAnswerToResultMs: summarize(gql.map((s) => s.resume)),
      mcpAskToResultLessSettleMs: summarize(mcp.map((s) => s.total)),
      graphqlAskToResultLessSettleMs: summarize(gql.map((s) => s.total)),
    };
    const p50 = (xs: { resume: number }[]) =>
      percentile(
        xs.map((s) => s.resume),
        50,
      );
    return {
      title: 'MCP ask_user → answer → tool result',
      about:
        'One instance; an agent asks a CONFIRM question that waits for its answer, either with the MCP ' +
        '`ask_user` tool (the official client over Streamable HTTP on /mcp, wait_seconds 30) or with a held ' +
        'GraphQL `askUser` (holdSeconds 30) that selects its `receipt` as the MCP result always carries one, alternating, ' +
        `${ITERATIONS} of each after ${WARMUP} warm-up pairs. The operator answers through GraphQL once the ` +
        `inbox stream shows the question (plus ${SETTLE_MS} ms, so the waiter is armed). The value is the p50 ` +
        'time from writing the answer until the MCP tool result has arrived, the floor the same for the ' +
        'askUser response (goal ≤ 1.3×). What MCP adds is its JSON-RPC framing, the tool result with ' +
        'structured content, and the client SDK itself. The whole ask→result times are in results.json.',
      figures: [
        figure({
          name: 'MCP ask_user answer→result p50',
          value: round(p50(mcp)),
          unit: 'ms',
          floorName: 'GraphQL held askUser (with receipt) answer→result p50',
          floor: round(p50(gql)),
          floorUnit: 'ms',
          parameters,
        }),
      ],
      warnings: troubleLines(server),
    };
  } finally {
    await client.close().catch(() => {});
    await server.stop();
  }
}
