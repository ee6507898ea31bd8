// Traces off and on the edges (API.md §24): unset (or disabled) nothing is kept, enqueued or
// exported, and webhooks carry no traceparent; a caller whose trace is not sampled gets no span
// but its trace carried on; the default protocol is OTLP/HTTP protobuf.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '../support/fakes/otlp-receiver.ts';
import { REPO_ROOT } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { type Receiver, startReceiver, webhookSecret } from '../webhooks/receiver.ts';

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }
`;
const ANSWER = /* GraphQL */ `
  mutation A($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { status } }
`;
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

async function gql(
  url: string,
  key: string,
  query: string,
  variables: Record<string, unknown>,
  headers = {},
) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: GraphQL data is checked field by field.
  return (await res.json()) as { data: any; errors?: unknown };
}

describe('traces off and at the edges', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  async function setUp(
    env: Record<string, string>,
  ): Promise<{ t: TestServer; url: string; hooks: Receiver }> {
    const hooks = await startReceiver();
    closers.push(() => hooks.close());
    const t = await startServer({
      store: 'memory',
      env,
      plugins: {
        webhookEndpoints: { runs: { url: hooks.url, secret: webhookSecret() } },
        outbox: { pollMs: 50 },
      },
    });
    closers.push(() => t.close());
    return { t, url: await t.listen(), hooks };
  }

  /** Asks with the caller's trace and a webhook, answers, and waits for the webhook. */
  async function askAndAnswer(url: string, hooks: Receiver, flags = '01') {
    const asked = await gql(
      url,
      KEYS.agent,
      ASK,
      { input: { text: 'Ship it?', notify: 'runs' } },
      {
        traceparent: `00-${TRACE_ID}-${PARENT}-${flags}`,
      },
    );
    const id = asked.data.askUser.question.id as string;
    expect((await gql(url, KEYS.ops, ANSWER, { id, answer: 'yes' })).data.answer.status).toBe('ANSWERED');
    const [delivery] = await hooks.received(1);
    return { id, delivery: delivery! };
  }

  for (const [label, extra] of [
    ['unset', {}],
    ['disabled (OTEL_SDK_DISABLED=true)', { OTEL_SDK_DISABLED: 'true' }],
    ['with the exporter none', { OTEL_TRACES_EXPORTER: 'none' }],
  ] as const) {
    it(`${label}: no trace on the question, nothing enqueued, nothing exported, no traceparent sent`, async () => {
      const otlp = await startOtlpReceiver();
      closers.push(() => otlp.close());
      const env: Record<string, string> =
        label === 'unset' ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, ...extra };
      const { t, url, hooks } = await setUp(env);
      expect(t.config.otel).toBeNull();
      const { id, delivery } = await askAndAnswer(url, hooks);
      expect(delivery.headers.traceparent).toBeUndefined();
      expect(delivery.headers.tracestate).toBeUndefined();
      const stored = await t.server.store.get(id);
      expect(stored?.trace).toBeUndefined();
      // The webhook was the question's only follow-up: once it is settled nothing else can leave.
      await expect.poll(() => t.server.store.outbox.stats(Date.now())).toEqual({ items: 0, deadLetters: 0 });
      expect(otlp.requests).toHaveLength(0);
    });
  }

  it('a caller trace that is not sampled: no span, the trace still carried to the webhook', async () => {
    const otlp = await startOtlpReceiver();
    closers.push(() => otlp.close());
    const { t, url, hooks } = await setUp({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    const { id, delivery } = await askAndAnswer(url, hooks, '00');
    const stored = await t.server.store.get(id);
    expect(stored?.trace).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT, sampled: false });
    expect(delivery.headers.traceparent).toBe(`00-${TRACE_ID}-${stored!.trace!.spanId}-00`);
    await expect.poll(() => t.server.store.outbox.stats(Date.now())).toEqual({ items: 0, deadLetters: 0 });
    expect(otlp.requests).toHaveLength(0);
  });

  it('by default exports OTLP/HTTP protobuf to <endpoint>/v1/traces, with the trace and parent ids', async () => {
    const otlp = await startOtlpReceiver();
    closers.push(() => otlp.close());
    const { t, url, hooks } = await setUp({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    const { id } = await askAndAnswer(url, hooks);
    const spanId = (await t.server.store.get(id))!.trace!.spanId;
    const request = await otlp.waitForRequest(() => true);
    expect(request.path).toBe('/v1/traces');
    expect(request.headers['content-type']).toBe('application/x-protobuf');
    // Protobuf `bytes` fields hold the ids raw, and the question id as a string attribute.
    for (const bytes of [
      Buffer.from(TRACE_ID, 'hex'),
      Buffer.from(PARENT, 'hex'),
      Buffer.from(spanId, 'hex'),
    ]) {
      expect(request.body.includes(bytes)).toBe(true);
    }
    expect(request.body.includes(Buffer.from(id))).toBe(true);
    expect(request.body.includes(Buffer.from('Ship it?'))).toBe(false);
  });
});

describe('the SDK is loaded only when tracing is configured', () => {
  const run = async (env: Record<string, string>): Promise<{ otel: boolean }> => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'test/tracing/fixtures/sdk-loaded.ts'],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env } },
    );
    return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { otel: boolean };
  };

  it('unset: a server that asked and answered never loaded an OpenTelemetry SDK module', async () => {
    expect(await run({})).toEqual({ otel: false });
  }, 60_000);

  it('set: the same run loads it (the check sees the SDK when it is there)', async () => {
    expect(await run({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual({ otel: true });
  }, 60_000);
});
