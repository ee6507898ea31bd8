// MCP ask_user → answer → tool result, beside the GraphQL held askUser on the same instance.
// An agent on MCP (the official client, Streamable HTTP on /mcp) and one on GraphQL each ask a
// CONFIRM question that waits for its answer; the operator answers it through GraphQL once the
// inbox shows it. The value is the time from writing the answer until the MCP tool result has
// arrived; the floor the same for the GraphQL askUser response, alternating in one loop.
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { type PairTimes, SETTLE_MS, startMcpPairs } from '../lib/mcp-pairs.ts';
import { startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { percentile, round, summarize } from '../lib/stats.ts';

const WARMUP = 20;
/** Each of the two paths, alternating. */
const ITERATIONS = Number(process.env.BENCH_MCP_ITERATIONS) || 150;

export async function mcpAsk(ctx: BenchContext): Promise<Section> {
  const server = await startInstance({ name: 'mcp', redisUrl: ctx.redisUrl, prefix: uniquePrefix('mcp') });
  let pairs: Awaited<ReturnType<typeof startMcpPairs>> | undefined;
  try {
    pairs = await startMcpPairs(server.url);
    ctx.log('  MCP client connected');
    const { viaMcp, viaGraphql } = pairs;

    const mcp: PairTimes[] = [];
    const gql: PairTimes[] = [];
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const m = await viaMcp(`bench mcp #${i}`);
      const g = await viaGraphql(`bench graphql #${i}`);
      if (i === 0) ctx.log(`  first pair: MCP ${m.resume.toFixed(1)} ms, GraphQL ${g.resume.toFixed(1)} ms`);
      if (i >= WARMUP) {
        mcp.push(m);
        gql.push(g);
      }
    }
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
    await pairs?.close();
    await server.stop();
  }
}
