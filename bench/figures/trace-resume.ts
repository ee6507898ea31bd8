// What OpenTelemetry traces (API.md §24) cost a question: ask → resume with tracing on, beside
// the same with it off. Two instances on one Redis (each its own key prefix), one exporting every
// wait span over OTLP/HTTP (protobuf, the default) to a loopback receiver in this process, one
// without any OTEL_* setting; both driven alike, alternating question by question so drift and
// noise hit both. Each round: a held askUser (with a caller `traceparent`) goes to the instance,
// its inbox stream says the question is stored, the answer goes to the same instance at once,
// and the value is the time from writing the ask until the last byte of the resumed askUser
// response. On the traced side the span's ids are chosen at ask time, the claim enqueues the
// question's `trace` item, and the outbox worker exports the span while (or right after) the
// asker resumes: all of it inside the measured window.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ANSWER, ASK, type AskData, dataOf, graphqlBody, graphqlClient, headersFor } from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { type Instance, startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { SseClient } from '../lib/sse.ts';
import { percentile, round, summarize } from '../lib/stats.ts';

const WARMUP = 30;
const ITERATIONS = 300;
const HOLD_SECONDS = 30;

/** A loopback OTLP/HTTP receiver: reads each export and answers 200 (an empty response is valid protobuf). */
async function startSink(): Promise<{ url: string; exports: () => number; close(): Promise<void> }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Side {
  name: 'on' | 'off';
  instance: Instance;
  inbox: SseClient;
  answerer: ReturnType<typeof graphqlClient>;
  samples: number[];
}

export async function traceResume(ctx: BenchContext): Promise<Section> {
  const sink = await startSink();
  const sides: Side[] = [];
  try {
    for (const name of ['on', 'off'] as const) {
      const instance = await startInstance({
        name: `trace-${name}`,
        redisUrl: ctx.redisUrl,
        prefix: uniquePrefix(`trace-${name}`),
        env: name === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {},
      });
      const inbox = new SseClient(`${instance.url}/api/interactions/stream`, {
        agent: socketPerRequestAgent(),
        headers: headersFor('operator', 'text/event-stream'),
      });
      sides.push({
        name,
        instance,
        inbox,
        answerer: graphqlClient(instance.url, 'operator', keepAliveAgent(2)),
        samples: [],
      });
      // At once: the stream's events are not kept for a later `next`.
      await inbox.next((e) => e.event === 'interaction.ready', 10_000);
    }
    const asker = keepAliveAgent(2);

    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      // Alternate which side goes first, so neither always runs right after the other.
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) {
        const text = `bench trace #${i} ${s.name}`;
        const added = s.inbox.next(
          (e) => e.event === 'interaction.add' && e.data.includes(`"${text}"`),
          10_000,
        );
        const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
        const held = send(`${s.instance.url}/graphql`, {
          agent: asker,
          method: 'POST',
          headers: { ...headersFor('agent'), traceparent },
          body: graphqlBody(ASK, { input: { text, format: 'CONFIRM' }, hold: HOLD_SECONDS }),
        });
        const { id } = JSON.parse((await added).data) as { id: string };
        dataOf(await s.answerer.post(ANSWER, { id, answer: true }));
        const reply = await held;
        const result = dataOf<AskData>(reply).askUser;
        if (result.status !== 'ANSWERED') throw new Error(`held askUser returned ${result.status}`);
        if (i >= WARMUP) s.samples.push(reply.endedAt - reply.sentAt);
      }
    }
    for (const s of sides) s.inbox.close();
    const [on, off] = sides as [Side, Side];
    if (sink.exports() === 0) throw new Error('tracing on exported nothing');
    const parameters = {
      iterations: ITERATIONS,
      warmup: WARMUP,
      holdSeconds: HOLD_SECONDS,
      protocol: 'http/protobuf',
      exportsReceived: sink.exports(),
      onMs: summarize(on.samples),
      offMs: summarize(off.samples),
    };
    const at = (p: number) =>
      figure({
        name: `ask→resume p${p}, tracing on`,
        value: round(percentile(on.samples, p)),
        unit: 'ms',
        floorName: `tracing off p${p}`,
        floor: round(percentile(off.samples, p)),
        floorUnit: 'ms',
        parameters,
      });
    return {
      title: 'OpenTelemetry traces: ask → resume, on against off',
      about:
        'Two instances on one Redis, one exporting each question’s `wait_for human_decision` span over ' +
        'OTLP/HTTP protobuf to a loopback receiver, one with no OTEL_* setting, driven alike and alternating. ' +
        'Each round a held askUser carrying a caller `traceparent` is answered on the same instance as soon as ' +
        'its inbox stream shows it; the value is the time from writing the ask until the resumed askUser ' +
        `response ended, over ${ITERATIONS} rounds per side after ${WARMUP} warm-up ones. The goal is at most ` +
        '1.1× at p50: the span’s ids and sampling at ask time, its `trace` outbox item enqueued by the claim, ' +
        'and its export by the outbox worker all fall inside the window.',
      figures: [at(50), at(99)],
      warnings: sides.flatMap((s) => troubleLines(s.instance)),
    };
  } finally {
    for (const s of sides) s.inbox.close();
    await Promise.all(sides.map((s) => s.instance.stop()));
    await sink.close();
  }
}
