// Figure 1: answer → resume. A held askUser on instance A is answered through instance B (one
// Redis, one key prefix); the latency runs from writing the answer request to B until the
// last byte of A's askUser response. The floor is what any such wake-up must cost at least:
// one GraphQL round trip to B plus one Redis PUBLISH → message hop, both measured in the same
// loop (interleaved, so drift and noise from other work hit both alike). Every answer is sent
// after a pause (A must be waiting first), so each part of the floor is measured after the same
// pause: on a VM a round trip to processes that sat idle costs several times one to processes
// that just worked (bench/README.md, "The floor measured after the same pause").

import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ANSWER, ASK, type AskData, dataOf, graphqlBody, graphqlClient, headersFor } from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { sleep } from '../lib/pool.ts';
import { pubSubProbe } from '../lib/redis.ts';
import { type Instance, startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { SseClient } from '../lib/sse.ts';
import { percentile, round, summarize } from '../lib/stats.ts';

const WARMUP = 30;
const ITERATIONS = 300;
const HOLD_SECONDS = 30;
/**
 * After the inbox sees ASKED, A still has to register its waiter and read the question once
 * (two Redis round trips). Answering before that would time A's fast path, not a wake-up.
 */
const SETTLE_MS = 40;

interface Sample {
  resumeMs: number;
  /** The answer mutation's own round trip to B, for reading the figure (not part of the floor). */
  answerMs: number;
  graphqlMs: number;
  publishMs: number;
  /** The floor measured at once after the resume instead of after the pause (not the floor). */
  warmFloorMs: number;
}

export async function resumeLatency(ctx: BenchContext): Promise<Section> {
  const prefix = uniquePrefix('resume');
  const instances: Instance[] = [];
  const probe = await pubSubProbe(ctx.redisUrl);
  try {
    const [a, b] = await Promise.all(
      ['A', 'B'].map((name) => startInstance({ name: `resume-${name}`, redisUrl: ctx.redisUrl, prefix })),
    );
    instances.push(a!, b!);
    const asker = keepAliveAgent(2);
    const answerer = graphqlClient(b!.url, 'operator', keepAliveAgent(2));
    // The operator's inbox on B tells us each question's id as soon as it is stored.
    const inbox = new SseClient(`${b!.url}/api/interactions/stream`, {
      agent: socketPerRequestAgent(),
      headers: headersFor('operator', 'text/event-stream'),
    });
    await inbox.next((e) => e.event === 'interaction.ready', 10_000);

    const samples: Sample[] = [];
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const text = `bench resume #${i}`;
      const added = inbox.next((e) => e.event === 'interaction.add' && e.data.includes(`"${text}"`), 10_000);
      const held = send(`${a!.url}/graphql`, {
        agent: asker,
        method: 'POST',
        headers: headersFor('agent'),
        body: graphqlBody(ASK, { input: { text, format: 'CONFIRM' }, hold: HOLD_SECONDS }),
      });
      const { id } = JSON.parse((await added).data) as { id: string };
      await sleep(SETTLE_MS);
      const answered = answerer.post(ANSWER, { id, answer: true });
      const [heldReply, answerReply] = await Promise.all([held, answered]);
      dataOf(answerReply);
      const result = dataOf<AskData>(heldReply).askUser;
      if (result.status !== 'ANSWERED') throw new Error(`held askUser returned ${result.status}`);

      // Orientation only: the same floor right after the resume, while every process is busy.
      const warmViewer = await answerer.post('{ viewer { id } }');
      dataOf(warmViewer);
      const warmPublishMs = await probe.roundTripMs();
      await sleep(SETTLE_MS);
      const viewer = await answerer.post('{ viewer { id } }');
      dataOf(viewer);
      await sleep(SETTLE_MS);
      const publishMs = await probe.roundTripMs();
      if (i >= WARMUP) {
        samples.push({
          resumeMs: heldReply.endedAt - answerReply.sentAt,
          answerMs: answerReply.endedAt - answerReply.sentAt,
          graphqlMs: viewer.endedAt - viewer.sentAt,
          publishMs,
          warmFloorMs: warmViewer.endedAt - warmViewer.sentAt + warmPublishMs,
        });
      }
    }
    inbox.close();

    const resume = samples.map((s) => s.resumeMs);
    const graphql = samples.map((s) => s.graphqlMs);
    const publish = samples.map((s) => s.publishMs);
    const parameters = {
      iterations: ITERATIONS,
      warmup: WARMUP,
      holdSeconds: HOLD_SECONDS,
      settleMsBeforeAnswer: SETTLE_MS,
      instances: 2,
      store: 'redis (shared, one key prefix)',
      resumeMs: summarize(resume),
      answerRoundTripMs: summarize(samples.map((s) => s.answerMs)),
      graphqlRoundTripMs: summarize(graphql),
      publishRoundTripMs: summarize(publish),
      floorPausedMs: SETTLE_MS,
      floorWithoutPauseMs: summarize(samples.map((s) => s.warmFloorMs)),
    };
    const at = (p: number) =>
      figure({
        name: `answer→resume p${p}`,
        value: round(percentile(resume, p)),
        unit: 'ms',
        floorName: `GraphQL RTT p${p} + PUBLISH RTT p${p}`,
        floor: round(percentile(graphql, p) + percentile(publish, p)),
        floorUnit: 'ms',
        parameters,
      });
    const answerP50 = percentile(
      samples.map((s) => s.answerMs),
      50,
    );
    return {
      title: 'Answer → resume across two instances',
      about:
        `A held \`askUser\` (holdSeconds ${HOLD_SECONDS}) on instance A is answered with the GraphQL \`answer\` ` +
        'mutation sent to instance B; both share one Redis. The value is the time from writing the answer ' +
        "request to B until the last byte of A's askUser response arrived, over " +
        `${ITERATIONS} answers after ${WARMUP} warm-up ones. The floor is the least such a wake-up can cost: a ` +
        'bare GraphQL round trip to B (`{ viewer { id } }`) plus one Redis PUBLISH → message hop on the same ' +
        `Redis, each at the same percentile, measured in the same loop, each after the same ${SETTLE_MS} ms pause ` +
        'the answer waits (`floorWithoutPauseMs`: the same floor measured at once after the resume, for ' +
        'orientation). A ratio near 1 means the wake-up costs ' +
        "little beyond those two; what it adds is the answer mutation's own work on B (a read, the answer's " +
        'validation, the claim script that publishes) and, on A, the waiter wake-up and the askUser response. ' +
        `For reading it: in this run the answer mutation's own round trip to B had a p50 of ${answerP50.toFixed(2)} ms, ` +
        `against ${percentile(resume, 50).toFixed(2)} ms for A's resumed response, so A answered its caller ` +
        `${(percentile(resume, 50) - answerP50).toFixed(2)} ms after B answered its own.`,
      figures: [at(50), at(99)],
      warnings: instances.flatMap(troubleLines),
    };
  } finally {
    probe.close();
    await Promise.all(instances.map((i) => i.stop()));
  }
}
