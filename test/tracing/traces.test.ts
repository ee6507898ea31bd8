// OpenTelemetry traces (API.md §24) through a real server and a loopback OTLP/HTTP receiver: the
// wait span continues the caller's trace (GraphQL and MCP), carries the attributes and events
// §24 names, ends at the resolution, leaves the resume webhook's traceparent pointing at it, and
// nothing that left the server holds a question's text, an argument, an answer, a ticket or a key.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_SPAN_NAME } from '../../src/engine/outbox/trace-span.ts';
import { connectMcp } from '../mcp/mcp-client.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/fakes/otlp-receiver.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { type Receiver, startReceiver, webhookSecret } from '../webhooks/receiver.ts';

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!) {
    askUser(input: $input, holdSeconds: 0) { status callbackUrl question { id } }
  }
`;
const ANSWER = /* GraphQL */ `
  mutation A($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { status } }
`;
const CANCEL = /* GraphQL */ `
  mutation C($id: ID!) { cancelQuestion(id: $id, reason: "not needed") { status } }
`;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const hex = (n: number, seed: number): string =>
  (seed.toString(16).padStart(n, '0') + 'a'.repeat(n)).slice(0, n);
const callerSpan = (seed: number): string => hex(16, seed);
const traceparent = (spanId: string, traceId = TRACE_ID): string => `00-${traceId}-${spanId}-01`;

// biome-ignore lint/suspicious/noExplicitAny: GraphQL data is checked field by field.
type Gql = { data: any; errors?: { message: string }[] };

async function gql(
  url: string,
  key: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Gql> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Gql;
}

describe('traces on (OTLP/HTTP JSON)', () => {
  let otlp: OtlpReceiver;
  let hooks: Receiver;
  let t: TestServer;
  let url: string;
  let mcp: Client;
  /** Every secret the tests handed the server; none may appear in an export. */
  const secrets: string[] = [...Object.values(KEYS)];

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    hooks = await startReceiver();
    t = await startServer({
      store: 'memory',
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'hitl-under-test',
      },
      plugins: {
        webhookEndpoints: { runs: { url: hooks.url, secret: webhookSecret() } },
        outbox: { pollMs: 50, backoffMs: () => 50 },
      },
    });
    url = await t.listen();
    mcp = await connectMcp(url, KEYS.agent, 'modern');
  });
  afterAll(async () => {
    await mcp?.close();
    await t?.close();
    await hooks?.close();
    await otlp?.close();
  });

  const spanOf = (id: string) => otlp.waitForSpan((s) => s.attributes['interactions.question.id'] === id);

  it('an askUser with a traceparent: one span in the caller trace, child of the caller span, ended at the answer', async () => {
    const parent = callerSpan(1);
    const text = 'Deploy the release to the blue cluster tonight? (secret-text-1)';
    secrets.push(text, 'secret-answer-1');
    const asked = await gql(
      url,
      KEYS.agent,
      ASK,
      { input: { text, notify: 'runs' } },
      {
        traceparent: traceparent(parent),
        tracestate: 'vendor=abc',
      },
    );
    expect(asked.errors).toBeUndefined();
    const id = asked.data.askUser.question.id as string;
    const answered = await gql(url, KEYS.ops, ANSWER, { id, answer: 'secret-answer-1' });
    expect(answered.data.answer.status).toBe('ANSWERED');

    const span = await spanOf(id);
    expect(span).toMatchObject({
      traceId: TRACE_ID,
      parentSpanId: parent,
      name: WAIT_SPAN_NAME,
      kind: 1, // SPAN_KIND_INTERNAL
      scope: 'tai-interactions',
    });
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.resource['service.name']).toBe('hitl-under-test');
    expect(span.attributes).toMatchObject({
      'interactions.question.id': id,
      'interactions.question.format': 'TEXT',
      'interactions.outcome': 'ANSWERED',
      'interactions.decided_by': 'person',
    });
    const wait = span.attributes['interactions.wait_seconds'] as number;
    expect(wait).toBeGreaterThanOrEqual(0);
    expect(span.end).toBeGreaterThanOrEqual(span.start);
    expect(Math.abs((span.end - span.start) / 1000 - wait)).toBeLessThan(0.002);

    // The resume webhook continues the same trace, its parent being the wait span.
    const [delivery] = await hooks.received(1);
    expect(delivery!.headers.traceparent).toBe(traceparent(span.spanId));
    expect(delivery!.headers.tracestate).toBe('vendor=abc');
  });

  it('an approval decided by two votes: action name, decision, a vote event each, decided by a person', async () => {
    const args = { account: 'secret-account-42', amount: 99_001 };
    secrets.push('secret-account-42', '99001', 'secret-note-7');
    const asked = await gql(
      url,
      KEYS.agent,
      ASK,
      {
        input: {
          text: 'Refund the customer? (secret-text-2)',
          format: 'APPROVAL',
          action: { name: 'payments.refund', arguments: args },
          quorum: { approvals: 2 },
        },
      },
      { traceparent: traceparent(callerSpan(2)) },
    );
    secrets.push('secret-text-2');
    expect(asked.errors).toBeUndefined();
    const id = asked.data.askUser.question.id as string;
    const vote = { decision: 'APPROVED', note: 'secret-note-7' };
    expect((await gql(url, KEYS.ops, ANSWER, { id, answer: vote })).data.answer.status).toBe('PENDING');
    expect((await gql(url, KEYS.admin, ANSWER, { id, answer: vote })).data.answer.status).toBe('ANSWERED');

    const span = await spanOf(id);
    expect(span.parentSpanId).toBe(callerSpan(2));
    expect(span.attributes).toMatchObject({
      'interactions.question.format': 'APPROVAL',
      'interactions.action.name': 'payments.refund',
      'interactions.outcome': 'ANSWERED',
      'interactions.decision': 'APPROVED',
      'interactions.decided_by': 'person',
    });
    const votes = span.events.filter((e) => e.name === 'vote');
    expect(votes).toHaveLength(2);
    for (const v of votes) {
      expect(v.attributes).toEqual({ 'interactions.decision': 'APPROVED', 'interactions.via': 'api' });
      expect(v.at).toBeGreaterThanOrEqual(span.start);
      expect(v.at).toBeLessThanOrEqual(span.end);
    }
  });

  it('a cancelled EXTERNAL question without a caller trace: a root span, decided_by cancelled', async () => {
    const asked = await gql(url, KEYS.agent, ASK, {
      input: {
        text: 'Sign the form (secret-text-3)',
        format: 'EXTERNAL',
        link: 'https://forms.example/?cb={callback_url}',
      },
    });
    expect(asked.errors).toBeUndefined();
    const id = asked.data.askUser.question.id as string;
    const ticket = new URL(asked.data.askUser.callbackUrl as string).pathname.split('/').pop()!;
    expect(ticket.length).toBeGreaterThanOrEqual(40);
    secrets.push('secret-text-3', ticket);
    expect((await gql(url, KEYS.agent, CANCEL, { id })).data.cancelQuestion.status).toBe('CANCELLED');

    const span = await spanOf(id);
    expect(span.parentSpanId).toBe('');
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.traceId).not.toBe(TRACE_ID);
    expect(span.attributes).toMatchObject({
      'interactions.question.format': 'EXTERNAL',
      'interactions.outcome': 'CANCELLED',
      'interactions.decided_by': 'cancelled',
    });
  });

  it('a question the reaper times out: outcome TIMED_OUT, decided_by timeout, ended at its deadline', async () => {
    const asked = await gql(
      url,
      KEYS.agent,
      ASK,
      { input: { text: 'Anyone?', timeoutSeconds: 1 } },
      {
        traceparent: traceparent(callerSpan(3)),
      },
    );
    const id = asked.data.askUser.question.id as string;
    const span = await spanOf(id);
    expect(span.parentSpanId).toBe(callerSpan(3));
    expect(span.attributes).toMatchObject({
      'interactions.outcome': 'TIMED_OUT',
      'interactions.decided_by': 'timeout',
    });
    expect(span.attributes['interactions.decision']).toBeUndefined();
    expect(span.end - span.start).toBeGreaterThanOrEqual(1000);
  });

  it('ask_user over MCP continues the traceparent in the request _meta', async () => {
    const parent = callerSpan(4);
    secrets.push('secret-text-4');
    const result = await mcp.callTool({
      name: 'ask_user',
      arguments: { text: 'Rotate the keys? (secret-text-4)', wait_seconds: 0 },
      _meta: { traceparent: traceparent(parent) },
    });
    const id = (result.structuredContent as { id: string }).id;
    expect((await gql(url, KEYS.ops, ANSWER, { id, answer: 'done' })).data.answer.status).toBe('ANSWERED');
    const span = await spanOf(id);
    expect(span).toMatchObject({ traceId: TRACE_ID, parentSpanId: parent });
  });

  it('a Claude Code permission hook continues its traceparent header; permission_prompt its _meta', async () => {
    const parent = callerSpan(7);
    const held = fetch(`${url}/api/interactions/hooks/claude-code?wait=0`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${KEYS.agent}`,
        traceparent: traceparent(parent),
      },
      body: JSON.stringify({
        session_id: 's-7',
        hook_event_name: 'PermissionRequest',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      }),
    });
    expect((await held).status).toBe(200);
    const listed = await gql(
      url,
      KEYS.ops,
      '{ questions(filter: {status: [PENDING]}) { edges { node { id action { name } } } } }',
      {},
    );
    const hooked = listed.data.questions.edges.find(
      (e: { node: { action: { name: string } | null } }) => e.node.action?.name === 'claude-code.Bash',
    ).node.id as string;
    expect(
      (await gql(url, KEYS.ops, ANSWER, { id: hooked, answer: { decision: 'APPROVED' } })).data.answer.status,
    ).toBe('ANSWERED');
    expect(await spanOf(hooked)).toMatchObject({ traceId: TRACE_ID, parentSpanId: parent });

    const promptParent = callerSpan(8);
    const result = await mcp.callTool({
      name: 'permission_prompt',
      arguments: { tool_name: 'Bash', input: { command: 'pwd' }, wait_seconds: 0 },
      _meta: { traceparent: traceparent(promptParent) },
    });
    const pending = await gql(
      url,
      KEYS.ops,
      '{ questions(filter: {status: [PENDING]}) { edges { node { id action { arguments } } } } }',
      {},
    );
    const prompted = pending.data.questions.edges.find(
      (e: { node: { action: { arguments: { command?: string } } | null } }) =>
        e.node.action?.arguments.command === 'pwd',
    ).node.id as string;
    expect(result.isError).not.toBe(true);
    expect(
      (await gql(url, KEYS.ops, ANSWER, { id: prompted, answer: { decision: 'REJECTED' } })).data.answer
        .status,
    ).toBe('ANSWERED');
    expect(await spanOf(prompted)).toMatchObject({ traceId: TRACE_ID, parentSpanId: promptParent });
  });

  it('ask_user over MCP (2025 era) continues the traceparent header of the /mcp request', async () => {
    const parent = callerSpan(6);
    const withTrace: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('traceparent', traceparent(parent));
      return fetch(input, { ...init, headers });
    };
    const legacy = await connectMcp(url, KEYS.agent, 'legacy', withTrace);
    try {
      const result = await legacy.callTool({
        name: 'ask_user',
        arguments: { text: 'Legacy?', wait_seconds: 0 },
      });
      const id = (result.structuredContent as { id: string }).id;
      expect((await gql(url, KEYS.ops, ANSWER, { id, answer: 'ok' })).data.answer.status).toBe('ANSWERED');
      expect(await spanOf(id)).toMatchObject({ traceId: TRACE_ID, parentSpanId: parent });
    } finally {
      await legacy.close();
    }
  });

  it('a failed export is retried by the outbox: the span arrives once the collector answers', async () => {
    otlp.failNext(2);
    const asked = await gql(
      url,
      KEYS.agent,
      ASK,
      { input: { text: 'Retry me' } },
      {
        traceparent: traceparent(callerSpan(5)),
      },
    );
    const id = asked.data.askUser.question.id as string;
    await gql(url, KEYS.ops, ANSWER, { id, answer: 'ok' });
    const span = await spanOf(id);
    expect(span.parentSpanId).toBe(callerSpan(5));
    expect(otlp.spans.filter((s) => s.attributes['interactions.question.id'] === id)).toHaveLength(1);
  });

  it('nothing secret left the server: no text, argument, answer, note, ticket or key in any export', () => {
    expect(otlp.requests.length).toBeGreaterThan(0);
    const all = Buffer.concat(otlp.requests.flatMap((r) => [r.body, Buffer.from(JSON.stringify(r.headers))]));
    const text = all.toString('utf8');
    for (const s of secrets) expect(text.includes(s), `export holds ${s}`).toBe(false);
    // Nor any fragment of a question's text.
    expect(text).not.toMatch(/secret-/);
  });
});
