// Server CPU and benchmark-process (client) CPU per held ask → answer → result, MCP `ask_user`
// (the official client over Streamable HTTP) against a held GraphQL `askUser`, in alternating
// rounds on one instance (Redis store), as the MCP figure asks and answers: how much of MCP's
// extra time is work, and on which side. Not part of `npm run bench`:
//   node --import tsx bench/profile/mcp-cpu.ts [rounds] [perRound]
// The server's CPU comes from /proc (10 ms ticks, so rounds of 100 or more); the client's from
// process.cpuUsage(). Both include the operator's answer mutation, the same on both sides.
import { type McpPairs, type PairTimes, startMcpPairs } from '../lib/mcp-pairs.ts';
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { removeRunSecrets } from '../lib/run-secrets.ts';
import { startInstance, uniquePrefix } from '../lib/servers.ts';
import { median, percentile } from '../lib/stats.ts';

const rounds = Number(process.argv[2] ?? 5);
const perRound = Number(process.argv[3] ?? 100);
const WARMUP_ROUNDS = 1;
/** MCP_CPU_ONLY=mcp: MCP rounds only (for a CPU profile of that path alone). */
const mcpOnly = process.env.MCP_CPU_ONLY === 'mcp';

const redis = await startRedis();
try {
  const server = await startInstance({
    name: 'mcp-cpu',
    redisUrl: redis.url,
    prefix: uniquePrefix('mcpcpu'),
  });
  let pairs: McpPairs | undefined;
  try {
    pairs = await startMcpPairs(server.url);
    const resumeOf = (go: (text: string) => Promise<PairTimes>) => async (text: string) =>
      (await go(text)).resume;
    const viaMcp = resumeOf(pairs.viaMcp);
    const viaGraphql = resumeOf(pairs.viaGraphql);

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
    const m = (f: (x: (typeof rows)[number]) => number) => median(rows.map(f));
    if (rows.length)
      console.log(
        `median: MCP ${m((x) => x.mcp.serverUs).toFixed(0)} µs server + ${m((x) => x.mcp.clientUs).toFixed(0)} µs client, ` +
          `p50 ${m((x) => x.mcp.p50).toFixed(2)} ms; GraphQL ${m((x) => x.gql.serverUs).toFixed(0)} µs server + ` +
          `${m((x) => x.gql.clientUs).toFixed(0)} µs client, p50 ${m((x) => x.gql.p50).toFixed(2)} ms; ` +
          `p50 ratio ${m((x) => x.mcp.p50 / x.gql.p50).toFixed(2)}×`,
      );
  } finally {
    await pairs?.close();
    await server.stop();
  }
} finally {
  await redis.stop();
  removeRunSecrets();
  killAllChildren();
}
