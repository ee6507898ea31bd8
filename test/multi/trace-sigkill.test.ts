// The wait span outlives the instance that asked (API.md §24): a real server process asks with
// the caller's traceparent and is killed with SIGKILL; a second process on the same private Redis
// takes the answer, and exactly one span arrives at the OTLP receiver, ended, in the caller's
// trace, starting when A asked. A later question's span, asked and answered on B, bounds what
// is observed: by the time it has arrived, a second span of the first question would have too.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../support/fakes/otlp-receiver.ts';
import { uniquePrefix } from '../support/fixtures.ts';
import { gqlAt, type ServerProcess, spawnServer } from '../support/processes.ts';
import { KEYS, PRINCIPALS } from '../support/server.ts';

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const PARENT = 'eee19b7ec3c1b174';

const QUESTION = /* GraphQL */ `
  query Q($id: ID!) { question(id: $id) { status createdAt answeredAt } }
`;
const ANSWER = /* GraphQL */ `
  mutation A($id: ID!) { answer(id: $id, answer: "go") { status } }
`;

async function ask(url: string, text: string, traceparent: string): Promise<string> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEYS.agent}`, traceparent },
    body: JSON.stringify({
      query:
        'mutation Ask($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }',
      variables: { input: { text, timeoutSeconds: 600 } },
    }),
  });
  const body = (await res.json()) as { data: { askUser: { question: { id: string } } } };
  return body.data.askUser.question.id;
}

describe('the wait span survives the death of the instance that asked', () => {
  const procs: ServerProcess[] = [];
  let otlp: OtlpReceiver;

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGTERM').catch(() => {})));
    await otlp?.close();
  });

  it('asked on A, A SIGKILLed, answered on B: exactly one span, ended', async () => {
    otlp = await startOtlpReceiver();
    const env = {
      INTERACTIONS_REDIS_URL: inject('redisUrl'),
      INTERACTIONS_KEY_PREFIX: uniquePrefix(),
      INTERACTIONS_API_KEYS: JSON.stringify(PRINCIPALS),
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    };
    const a = await spawnServer(env);
    procs.push(a);
    const id = await ask(a.url, 'Page the database team?', `00-${TRACE_ID}-${PARENT}-01`);
    await a.kill('SIGKILL');

    const b = await spawnServer(env);
    procs.push(b);
    const answered = await gqlAt(b.url, KEYS.ops, ANSWER, { id });
    expect(answered.data.answer.status).toBe('ANSWERED');
    const span = await otlp.waitForSpan((s) => s.attributes['interactions.question.id'] === id);

    // The sentinel: asked and answered on B after the first question resolved.
    const sentinel = await ask(b.url, 'Sentinel', `00-${TRACE_ID}-${'1'.repeat(16)}-01`);
    await gqlAt(b.url, KEYS.ops, ANSWER, { id: sentinel });
    await otlp.waitForSpan((s) => s.attributes['interactions.question.id'] === sentinel);

    expect(otlp.spans.filter((s) => s.attributes['interactions.question.id'] === id)).toHaveLength(1);
    const read = await gqlAt(b.url, KEYS.ops, QUESTION, { id });
    expect(span).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT, name: 'wait_for human_decision' });
    expect(span.attributes).toMatchObject({
      'interactions.outcome': 'ANSWERED',
      'interactions.decided_by': 'person',
    });
    // Started when A asked, ended when B recorded the answer.
    expect(span.start).toBe(Date.parse(read.data.question.createdAt));
    expect(span.end).toBe(Date.parse(read.data.question.answeredAt));
    expect(span.end).toBeGreaterThanOrEqual(span.start);
  }, 90_000);
});
