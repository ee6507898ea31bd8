// Server and Redis CPU, and wall time, of the GraphQL `answer` mutation against the resume
// figure's floor query `{ viewer { id } }`, one request at a time on one instance (Redis store):
// how much of the answer's extra round trip is work, and how much is waiting. Not part of
// `npm run bench`:
//   node --import tsx bench/profile/answer-cpu.ts [rounds] [perRound]
import { ANSWER, ASK, type AskData, dataOf, graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent } from '../lib/http.ts';
import { runPool } from '../lib/pool.ts';
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { startInstance, uniquePrefix } from '../lib/servers.ts';
import { median, percentile } from '../lib/stats.ts';

const rounds = Number(process.argv[2] ?? 6);
const perRound = Number(process.argv[3] ?? 300);
const WARMUP_ROUNDS = 1;

const redis = await startRedis();
try {
  const server = await startInstance({
    name: 'answer-cpu',
    redisUrl: redis.url,
    prefix: uniquePrefix('acpu'),
  });
  try {
    const agent = graphqlClient(server.url, 'agent', keepAliveAgent(8));
    const operator = graphqlClient(server.url, 'operator', keepAliveAgent(1));
    const rows: {
      answerUs: number;
      viewerUs: number;
      answerRedisUs: number;
      answerMs: number;
      viewerMs: number;
    }[] = [];
    for (let r = 0; r < rounds; r++) {
      const ids: string[] = new Array(perRound);
      await runPool(perRound, 8, async (i) => {
        const d = await agent.call<AskData>(ASK, {
          input: { text: `a ${r}/${i}`, format: 'CONFIRM' },
          hold: 0,
        });
        ids[i] = d.askUser.question.id;
      });
      const answerWall: number[] = [];
      const viewerWall: number[] = [];
      let s = cpuMs(server.pid);
      let rs = cpuMs(redis.child.pid);
      for (const id of ids) {
        const reply = await operator.post(ANSWER, { id, answer: true });
        dataOf(reply);
        answerWall.push(reply.endedAt - reply.sentAt);
      }
      const answerUs = ((cpuMs(server.pid) - s) * 1000) / perRound;
      const answerRedisUs = ((cpuMs(redis.child.pid) - rs) * 1000) / perRound;
      s = cpuMs(server.pid);
      rs = cpuMs(redis.child.pid);
      for (let i = 0; i < perRound; i++) {
        const reply = await operator.post('{ viewer { id } }');
        dataOf(reply);
        viewerWall.push(reply.endedAt - reply.sentAt);
      }
      const viewerUs = ((cpuMs(server.pid) - s) * 1000) / perRound;
      if (r < WARMUP_ROUNDS) continue;
      const row = {
        answerUs,
        viewerUs,
        answerRedisUs,
        answerMs: percentile(answerWall, 50),
        viewerMs: percentile(viewerWall, 50),
      };
      rows.push(row);
      console.log(
        `round ${r}: answer ${answerUs.toFixed(0)} µs CPU (+ Redis ${answerRedisUs.toFixed(0)} µs), p50 ` +
          `${row.answerMs.toFixed(2)} ms; viewer ${viewerUs.toFixed(0)} µs CPU, p50 ${row.viewerMs.toFixed(2)} ms`,
      );
    }
    const m = (k: keyof (typeof rows)[number]) => median(rows.map((x) => x[k]));
    console.log(
      `median: answer ${m('answerUs').toFixed(0)} µs server CPU + ${m('answerRedisUs').toFixed(0)} µs Redis, p50 ` +
        `${m('answerMs').toFixed(2)} ms; viewer ${m('viewerUs').toFixed(0)} µs, p50 ${m('viewerMs').toFixed(2)} ms`,
    );
  } finally {
    await server.stop();
  }
} finally {
  await redis.stop();
  killAllChildren();
}
