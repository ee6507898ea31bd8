// Server CPU and benchmark-process (client) CPU per held ask → answer → result, MCP `ask_user`
// (the official client over Streamable HTTP) against a held GraphQL `askUser`, in alternating
// rounds on one instance (Redis store), as the MCP figure asks and answers: how much of MCP's
// extra time is work, and on which side. Not part of `npm run bench`:
//   node --import tsx bench/profile/mcp-cpu.ts [rounds] [perRound]
// The server's CPU comes from /proc (10 ms ticks, so rounds of 100 or more); the client's from
// process.cpuUsage(). Both include the operator's answer mutation, the same on both sides.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
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
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { removeRunSecrets } from '../lib/run-secrets.ts';
import { startInstance, uniquePrefix } from '../lib/servers.ts';
import { SseClient } from '../lib/sse.ts';
import { median, percentile } from '../lib/stats.ts';

const rounds = Number(process.argv[2] ?? 5);
const perRound = Number(process.argv[3] ?? 100);
const WARMUP_ROUNDS = 1;
/** As in the figure: the waiter is armed before the answer is written. */
const SETTLE_MS = 40;
/** As in the figure: the GraphQL askUser selects its receipt, which the MCP result carries. */
const floorAsk = ASK_WITH_RECEIPT;
/** MCP_CPU_ONLY=mcp: MCP rounds only (for a CPU profile of that path alone). */
const mcpOnly = process.env.MCP_CPU_ONLY === 'mcp';

const redis = await startRedis();
try {
  const server = await startInstance({
    name: 'mcp-cpu',
    redisUrl: redis.url,
    prefix: uniquePrefix('mcpcpu'),
  });
  const client = new Client({ name: 'tai-bench', version: '1.0.0' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
        requestInit: { headers: { authorization: `Bearer ${KEYS.agent}` } },
      }),
    );
    const asker = keepAliveAgent(2);
    const answerer = graphqlClient(server.url, 'operator', keepAliveAgent(2));
    const inbox = new SseClient(`${server.url}/api/interactions/stream`, {
      agent: socketPerRequestAgent(),
      headers: headersFor('operator', 'text/event-stream'),
    });
    await inbox.next((e) => e.event === 'interaction.ready', 10_000);

    const pair = async (text: string, ask: () => Promise<number>): Promise<number> => {
      const added = inbox.next((e) => e.event === 'interaction.add' && e.data.includes(`"${text}"`), 10_000);
      const done = ask();
      const { id } = JSON.parse((await added).data) as { id: string };
      await sleep(SETTLE_MS);
      const answered = answerer.post(ANSWER, { id, answer: true });
      const [endedAt, reply] = await Promise.all([done, answered]);
      dataOf(reply);
      return endedAt - reply.sentAt;
    };
    const viaMcp = (text: string) =>
      pair(text, async () => {
        const r = await client.callTool({
          name: 'ask_user',
          arguments: { text, format: 'CONFIRM', wait_seconds: 30 },
        });
        const status = (r.structuredContent as { status?: string } | undefined)?.status;
        if (r.isError || status !== 'ANSWERED') throw new Error(`ask_user returned ${JSON.stringify(r)}`);
        return performance.now();
      });
    const viaGraphql = (text: string) =>
      pair(text, async () => {
        const reply = await send(`${server.url}/graphql`, {
          agent: asker,
          method: 'POST',
          headers: headersFor('agent'),
          body: graphqlBody(floorAsk, { input: { text, format: 'CONFIRM' }, hold: 30 }),
        });
        if (dataOf<AskData>(reply).askUser.status !== 'ANSWERED')
          throw new Error('held askUser not answered');
        return reply.endedAt;
      });

    /** Server µs, client µs and answer→result p50 (ms) per pair of one round of one path. */
    const round = async (label: string, r: number, one: (text: string) => Promise<number>) => {
      const s = cpuMs(server.pid);
      const c = process.cpuUsage();
      const wall: number[] = [];
      for (let i = 0; i < perRound; i++) wall.push(await one(`cpu ${label} ${r}/${i}`));
      const used = process.cpuUsage(c);
      return {
        serverUs: ((cpuMs(server.pid) - s) * 1000) / perRound,
        clientUs: (used.user + used.system) / perRound,
        p50: percentile(wall, 50),
      };
    };
    const rows: { mcp: Awaited<ReturnType<typeof round>>; gql: Awaited<ReturnType<typeof round>> }[] = [];
    for (let r = 0; r < rounds; r++) {
      // Alternating which goes first, so neither always follows the other's garbage.
      const first = r % 2 === 0;
      if (mcpOnly) {
        const only = await round('mcp', r, viaMcp);
        if (r >= WARMUP_ROUNDS)
          console.log(
            `round ${r}: MCP ${only.serverUs.toFixed(0)} µs server, ${only.clientUs.toFixed(0)} µs client, p50 ${only.p50.toFixed(2)} ms`,
          );
        continue;
      }
      const a = first ? await round('mcp', r, viaMcp) : await round('gql', r, viaGraphql);
      const b = first ? await round('gql', r, viaGraphql) : await round('mcp', r, viaMcp);
      const row = first ? { mcp: a, gql: b } : { mcp: b, gql: a };
      if (r < WARMUP_ROUNDS) continue;
      rows.push(row);
      console.log(
        `round ${r}: MCP ${row.mcp.serverUs.toFixed(0)} µs server, ${row.mcp.clientUs.toFixed(0)} µs client, ` +
          `p50 ${row.mcp.p50.toFixed(2)} ms; GraphQL ${row.gql.serverUs.toFixed(0)} µs server, ` +
          `${row.gql.clientUs.toFixed(0)} µs client, p50 ${row.gql.p50.toFixed(2)} ms`,
      );
    }
    inbox.close();
    const m = (f: (x: (typeof rows)[number]) => number) => median(rows.map(f));
    if (rows.length)
      console.log(
        `median: MCP ${m((x) => x.mcp.serverUs).toFixed(0)} µs server + ${m((x) => x.mcp.clientUs).toFixed(0)} µs client, ` +
          `p50 ${m((x) => x.mcp.p50).toFixed(2)} ms; GraphQL ${m((x) => x.gql.serverUs).toFixed(0)} µs server + ` +
          `${m((x) => x.gql.clientUs).toFixed(0)} µs client, p50 ${m((x) => x.gql.p50).toFixed(2)} ms; ` +
          `p50 ratio ${m((x) => x.mcp.p50 / x.gql.p50).toFixed(2)}×`,
      );
  } finally {
    await client.close().catch(() => {});
    await server.stop();
  }
} finally {
  await redis.stop();
  removeRunSecrets();
  killAllChildren();
}
