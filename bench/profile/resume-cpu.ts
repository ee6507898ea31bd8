// Server CPU per held askUser, split into its hold (ask → held) and its release (answer →
// resumed reply), from /proc: steadier than latency on a busy machine. One instance (Redis
// store); each round holds BATCH calls, then answers them all. Not part of `npm run bench`:
//   node --import tsx bench/profile/resume-cpu.ts [rounds] [batch]
import {
  ANSWER,
  ASK,
  type AskData,
  dataOf,
  graphqlBody,
  graphqlClient,
  headersFor,
  pendingIds,
} from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { pollUntil } from '../lib/pool.ts';
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { startInstance, uniquePrefix } from '../lib/servers.ts';

const rounds = Number(process.argv[2] ?? 12);
const batch = Number(process.argv[3] ?? 200);
const WARMUP_ROUNDS = 2;

const redis = await startRedis();
try {
  const server = await startInstance({
    name: 'resume-cpu',
    redisUrl: redis.url,
    prefix: uniquePrefix('rcpu'),
  });
  try {
    const operator = graphqlClient(server.url, 'operator', keepAliveAgent(4));
    const agent = socketPerRequestAgent();
    let holdMs = 0;
    let releaseMs = 0;
    for (let r = 0; r < rounds; r++) {
      const group = `g${r}`;
      const c0 = cpuMs(server.pid);
      const held = Array.from({ length: batch }, (_, i) =>
        send(`${server.url}/graphql`, {
          agent,
          method: 'POST',
          headers: headersFor('agent'),
          body: graphqlBody(ASK, {
            input: { text: `q ${r}/${i}`, format: 'CONFIRM', groupId: group },
            hold: 60,
          }),
        }),
      );
      let ids: string[] = [];
      await pollUntil(
        async () => {
          ids = await pendingIds(operator, group);
          return ids.length === batch;
        },
        60_000,
        50,
      );
      const c1 = cpuMs(server.pid);
      await Promise.all(ids.map((id) => operator.post(ANSWER, { id, answer: true }).then(dataOf)));
      for (const reply of await Promise.all(held)) {
        if (dataOf<AskData>(reply).askUser.status !== 'ANSWERED') throw new Error('not answered');
      }
      const c2 = cpuMs(server.pid);
      if (r >= WARMUP_ROUNDS) {
        holdMs += c1 - c0;
        releaseMs += c2 - c1;
      }
    }
    const n = (rounds - WARMUP_ROUNDS) * batch;
    console.log(
      `server CPU per held askUser: hold ${((holdMs * 1000) / n).toFixed(0)} µs, ` +
        `release (answer + resume) ${((releaseMs * 1000) / n).toFixed(0)} µs over ${n} calls`,
    );
  } finally {
    await server.stop();
  }
} finally {
  await redis.stop();
  killAllChildren();
}
