// /mcp through the real server with the official MCP client, in both protocol eras.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../src/client/index.ts';
import { type Engine, OPS } from '../support/engines.ts';
import { gqlAt, httpRequest } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { connectMcp, ERAS, nextAsked, textOf } from './mcp-client.ts';

/** Polls a cheap in-process condition (no I/O); fails if it never holds. */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const ANSWER = 'mutation($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id status } }';

/** The headers of a raw MCP POST from the agent (streamable HTTP, the newest protocol version). */
const AGENT_POST = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  authorization: `Bearer ${KEYS.agent}`,
};

let t: TestServer;
let url: string;

beforeAll(async () => {
  t = await startServer({ store: 'memory', plugins: { mcpProgressIntervalMs: 20 } });
  url = await t.listen();
});
afterAll(async () => {
  await t.close();
});

async function answer(id: string, value: unknown): Promise<void> {
  const r = await gqlAt(url, KEYS.ops, ANSWER, { id, answer: value });
  expect(r.errors).toBeUndefined();
}

describe.each(ERAS)('MCP over HTTP (%s era)', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(url, KEYS.agent, era);
  });
  afterAll(async () => {
    await client.close();
  });

  it('negotiated the era asked for', () => {
    expect(client.getProtocolEra()).toBe(era);
  });

  it('lists the six tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([
      'ask_user',
      'await_answer',
      'cancel_question',
      'get_question',
      'list_questions',
      'permission_prompt',
    ]);
    for (const tool of tools) expect(tool.outputSchema?.type).toBe('object');
    const ask = tools.find((x) => x.name === 'ask_user');
    expect(Object.keys(ask?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'text',
        'format',
        'group_id',
        'timeout_seconds',
        'idempotency_key',
        'wait_seconds',
      ]),
    );
  });

  it('ask → PENDING, answered through GraphQL, then await_answer returns it', async () => {
    const asked = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Ship it?', wait_seconds: 0 },
    });
    expect(asked.isError).toBeFalsy();
    const pending = asked.structuredContent as { status: string; id: string; answer: unknown };
    expect(pending.status).toBe('PENDING');
    expect(textOf(asked)).toContain(`await_answer`);
    expect(textOf(asked)).toContain(pending.id);

    const got = await client.callTool({ name: 'get_question', arguments: { id: pending.id } });
    expect(
      (got.structuredContent as { question: { status: string; askedBy: string } }).question,
    ).toMatchObject({
      status: 'PENDING',
      askedBy: 'agent',
    });

    await answer(pending.id, 'yes');
    const waited = await client.callTool({
      name: 'await_answer',
      arguments: { id: pending.id, wait_seconds: 5 },
    });
    const { receipt, ...rest } = waited.structuredContent as { receipt: string };
    expect(rest).toEqual({ status: 'ANSWERED', id: pending.id, answer: 'yes' });
    // The decision receipt comes with the result and checks against the published keys.
    const jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    const claims = await verifyReceipt(receipt, { jwks, questionId: pending.id });
    expect(claims.outcome).toMatchObject({ status: 'ANSWERED', via: 'api' });
    expect((pending as { receipt?: unknown }).receipt).toBeNull();
  });

  it('ask_user with format APPROVAL and an editable action; the agent gets the approved arguments', async () => {
    const asked = await client.callTool({
      name: 'ask_user',
      arguments: {
        text: 'Refund ch_1?',
        format: 'APPROVAL',
        action: {
          name: 'payments.refund',
          summary: 'Refund 100',
          arguments: { charge: 'ch_1', amount: 100 },
          arguments_schema: {
            type: 'object',
            properties: { charge: { type: 'string' }, amount: { type: 'integer' } },
          },
          editable: true,
        },
        wait_seconds: 0,
      },
    });
    expect(asked.isError).toBeFalsy();
    const { id } = asked.structuredContent as { id: string };
    await answer(id, { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 60 } });
    const waited = await client.callTool({ name: 'await_answer', arguments: { id, wait_seconds: 5 } });
    const { receipt, ...rest } = waited.structuredContent as { receipt: string };
    expect(rest).toEqual({
      status: 'ANSWERED',
      id,
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 60 } },
    });
    const jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    const claims = await verifyReceipt(receipt, {
      jwks,
      action: { name: 'payments.refund', arguments: { charge: 'ch_1', amount: 60 } },
    });
    expect(claims.outcome).toMatchObject({ decision: 'APPROVED' });
  });

  it('a blocking ask_user is woken by the answer', async () => {
    const id = nextAsked(t.server.engine);
    const call = client.callTool({
      name: 'ask_user',
      arguments: { text: 'Deploy?', format: 'CONFIRM', wait_seconds: 60 },
    });
    await answer(await id, true);
    const result = await call;
    expect(result.structuredContent).toMatchObject({ status: 'ANSWERED', answer: true });
  });

  it('sends progress notifications while it waits, when the client gave a progress token', async () => {
    const id = nextAsked(t.server.engine);
    const progress: number[] = [];
    let answered = false;
    const call = client.callTool(
      { name: 'ask_user', arguments: { text: 'Budget?', wait_seconds: 60 } },
      {
        onprogress: (p) => {
          progress.push(p.progress);
          // Answer once two heartbeats arrived: the wait was still running then.
          if (progress.length === 2 && !answered) {
            answered = true;
            void id.then((qid) => answer(qid, '100'));
          }
        },
      },
    );
    const result = await call;
    expect(result.structuredContent).toMatchObject({ status: 'ANSWERED', answer: '100' });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[1]).toBeGreaterThan(progress[0] as number);
  });

  it('idempotency_key: the same key returns the same question', async () => {
    const key = `idem-${era}`;
    const a = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Once?', idempotency_key: key, wait_seconds: 0 },
    });
    const b = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Once?', idempotency_key: key, wait_seconds: 0 },
    });
    const idA = (a.structuredContent as { id: string }).id;
    expect((b.structuredContent as { id: string }).id).toBe(idA);
    const list = await client.callTool({ name: 'list_questions', arguments: { status: ['PENDING'] } });
    const ids = (list.structuredContent as { questions: { id: string }[] }).questions.map((q) => q.id);
    expect(ids.filter((x) => x === idA)).toHaveLength(1);
  });

  /** ask_user with these arguments is an isError result whose text starts with `expected`. */
  async function expectBadAsk(args: Record<string, unknown>, expected: RegExp): Promise<void> {
    const r = await client.callTool({ name: 'ask_user', arguments: args });
    expect(r.isError, JSON.stringify(args)).toBe(true);
    expect(textOf(r)).toMatch(expected);
  }

  it('bad input is an isError result starting BAD_USER_INPUT, naming the argument', async () => {
    await expectBadAsk({ wait_seconds: 0 }, /^BAD_USER_INPUT: text: /);
    await expectBadAsk({ text: 'x', wait_seconds: 301 }, /^BAD_USER_INPUT: wait_seconds: .*300/);
    await expectBadAsk({ text: 'x', media: [{ kind: 'IMAGE' }] }, /^BAD_USER_INPUT: media\[0\]\.url: /);
    await expectBadAsk({ text: 'Pick', format: 'SELECT', wait_seconds: 0 }, /^BAD_USER_INPUT: /);
  });

  it('unknown arguments are refused by name, listing the valid ones; nothing is asked', async () => {
    const before = (await client.callTool({ name: 'list_questions', arguments: {} })).structuredContent as {
      totalCount: number;
    };
    await expectBadAsk(
      { text: 'Typo?', wait_second: 0 },
      /^BAD_USER_INPUT: unknown argument "wait_second" \(the arguments are: text, format, .*, wait_seconds, answer_here\)$/,
    );
    await expectBadAsk(
      { text: 'Typo?', media: [{ kind: 'LINK', url: 'https://example.com', capton: 'x' }] },
      /^BAD_USER_INPUT: media\[0\]: unknown field "capton"$/,
    );
    const listed = await client.callTool({ name: 'list_questions', arguments: { frist: 5 } });
    expect(textOf(listed)).toMatch(/^BAD_USER_INPUT: unknown argument "frist"/);
    const after = (await client.callTool({ name: 'list_questions', arguments: {} })).structuredContent as {
      totalCount: number;
    };
    expect(after.totalCount).toBe(before.totalCount);
  });

  it('the listed input schemas refuse unknown arguments too (additionalProperties: false)', async () => {
    const { tools } = await client.listTools();
    // permission_prompt is called by Claude Code itself, not by a model: fields a newer Claude Code
    // adds are ignored rather than refused (API.md §21).
    for (const tool of tools.filter((x) => x.name !== 'permission_prompt')) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
  });

  it('ask_user takes metadata and notify: metadata comes back, an unknown endpoint is BAD_USER_INPUT', async () => {
    const asked = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Resume?', metadata: { runId: 'r9' }, wait_seconds: 0 },
    });
    const { id } = asked.structuredContent as { id: string };
    const got = await client.callTool({ name: 'get_question', arguments: { id } });
    expect((got.structuredContent as { question: unknown }).question).toMatchObject({
      metadata: { runId: 'r9' },
      notify: null,
    });
    await expectBadAsk({ text: 'Resume?', notify: 'nowhere', wait_seconds: 0 }, /^BAD_USER_INPUT: /);
  });

  it('ask_user takes an escalation ladder (API.md §18) and refuses a step under 10 s and an unknown policy', async () => {
    const asked = await client.callTool({
      name: 'ask_user',
      arguments: {
        text: 'Still there?',
        timeout_seconds: 600,
        escalation: [{ after_seconds: 10, action: 'REMIND' }],
        wait_seconds: 0,
      },
    });
    expect(asked.structuredContent).toMatchObject({ status: 'PENDING' });
    // The question view shows the ladder as GraphQL does (camelCase), on every tool that returns it.
    const { id } = asked.structuredContent as { id: string };
    const ladder = [
      { afterSeconds: 10, action: 'REMIND', channel: null, recipient: null, firedAt: null, outcome: null },
    ];
    const got = await client.callTool({ name: 'get_question', arguments: { id } });
    expect((got.structuredContent as { question: { escalations: unknown } }).question.escalations).toEqual(
      ladder,
    );
    const listed = await client.callTool({ name: 'list_questions', arguments: { status: ['PENDING'] } });
    const questions = (listed.structuredContent as { questions: { id: string; escalations: unknown }[] })
      .questions;
    expect(questions.find((q) => q.id === id)?.escalations).toEqual(ladder);
    expect(questions.filter((q) => q.id !== id).every((q) => Array.isArray(q.escalations))).toBe(true);
    const cancelled = await client.callTool({ name: 'cancel_question', arguments: { id } });
    expect(
      (cancelled.structuredContent as { question: { escalations: unknown } }).question.escalations,
    ).toEqual(ladder);
    await expectBadAsk(
      { text: 'x', escalation: [{ after_seconds: 9, action: 'REMIND' }], wait_seconds: 0 },
      /^BAD_USER_INPUT: afterSeconds must be at least 10/,
    );
    await expectBadAsk(
      { text: 'x', escalation_policy: 'none-such', wait_seconds: 0 },
      /^BAD_USER_INPUT: unknown escalation policy/,
    );
  });

  it('wait_seconds at the limit (300) is accepted', async () => {
    const r = await client.callTool({
      name: 'await_answer',
      arguments: { id: 'no-such-question', wait_seconds: 300 },
    });
    // Accepted by the schema; the service then finds no such question.
    expect(textOf(r)).toMatch(/^NOT_FOUND: /);
  });

  it('cancel_question cancels, and a question of another agent is NOT_FOUND', async () => {
    const asked = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Cancel me', wait_seconds: 0 },
    });
    const id = (asked.structuredContent as { id: string }).id;
    const other = await connectMcp(url, KEYS.agent2, era);
    try {
      const theirs = await other.callTool({ name: 'cancel_question', arguments: { id } });
      expect(theirs.isError).toBe(true);
      expect(textOf(theirs)).toMatch(/^NOT_FOUND: /);
      const seen = await other.callTool({ name: 'get_question', arguments: { id } });
      expect(seen.structuredContent).toEqual({ question: null });
    } finally {
      await other.close();
    }
    const cancelled = await client.callTool({
      name: 'cancel_question',
      arguments: { id, reason: 'not needed' },
    });
    expect((cancelled.structuredContent as { question: { status: string } }).question.status).toBe(
      'CANCELLED',
    );
    const waited = await client.callTool({ name: 'await_answer', arguments: { id, wait_seconds: 0 } });
    expect(waited.structuredContent).toMatchObject({ status: 'CANCELLED', id, answer: null });
  });

  it('an operator-only key cannot ask: FORBIDDEN as an isError result', async () => {
    const ops = await connectMcp(url, KEYS.ops, era);
    try {
      const r = await ops.callTool({ name: 'ask_user', arguments: { text: 'May I?', wait_seconds: 0 } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/^FORBIDDEN: /);
    } finally {
      await ops.close();
    }
  });

  it('no key (or an unknown one) is refused with 401', async () => {
    await expect(connectMcp(url, null, era)).rejects.toThrow();
    await expect(connectMcp(url, 'not-a-key', era)).rejects.toThrow();
  });
});

describe('/mcp over plain HTTP', () => {
  it('answers 401 with no key, before any MCP processing', async () => {
    const res = await httpRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('keeps no sessions: GET and DELETE with a key are 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await httpRequest(`${url}/mcp`, {
        method,
        headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${KEYS.agent}` },
      });
      expect(res.status).toBe(405);
    }
  });

  it('answers a 2025-era call with one JSON body, and streams only a call that gave a progress token', async () => {
    const call = (meta: Record<string, unknown> | undefined) =>
      httpRequest(`${url}/mcp`, {
        method: 'POST',
        headers: AGENT_POST,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'get_question', arguments: { id: 'none' }, ...(meta ? { _meta: meta } : {}) },
        }),
      });
    const plain = await call(undefined);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await plain.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { structuredContent: { question: null } },
    });
    // A progress token may bring notifications before the result: those need the stream.
    const streamed = await call({ progressToken: 'p1' });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frame = (await streamed.text()).split('\n').find((line) => line.startsWith('data: {'));
    expect(JSON.parse(frame?.slice('data: '.length) ?? 'null')).toMatchObject({
      id: 7,
      result: { structuredContent: { question: null } },
    });
  });

  it('refuses a 2025-era POST that is not JSON with 415, as before any routing', async () => {
    const res = await httpRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { ...AGENT_POST, 'content-type': 'text/plain' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(415);
  });

  it('caps the body at 4 MiB: at the cap it is served, one byte over is 413', async () => {
    const CAP = 4 * 1024 * 1024;
    const bodyOf = (size: number): string => {
      const shell = (id: string) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_question', arguments: { id } },
        });
      return shell('x'.repeat(size - shell('').length));
    };
    const post = (body: string) =>
      httpRequest(`${url}/mcp`, {
        method: 'POST',
        headers: AGENT_POST,
        body,
      });
    const atCap = await post(bodyOf(CAP));
    expect(atCap.status).toBe(200);
    expect(await atCap.text()).toContain('"question":null');
    const over = await post(bodyOf(CAP + 1));
    expect(over.status).toBe(413);
  });
});

describe('/mcp and a client that goes away mid-wait', () => {
  it('releases the server-side waiter, never the question', async () => {
    // A raw request on its own socket (no fetch pool), dropped while the tool waits.
    const engine = t.server.engine as Engine;
    const id = nextAsked(engine);
    const aborter = new AbortController();
    const call = httpRequest(`${url}/mcp`, {
      method: 'POST',
      headers: AGENT_POST,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask_user', arguments: { text: 'Walk away', wait_seconds: 60 } },
      }),
      signal: aborter.signal,
    });
    const qid = await id;
    await until(() => engine.waiterCount() > 0, 'the wait is held');
    aborter.abort();
    await expect(call).rejects.toThrow();
    await until(() => engine.waiterCount() === 0, 'the waiter is released');
    expect((await engine.get(OPS, qid))?.status).toBe('PENDING');
  });
});

/**
 * Node's fetch with idle sockets kept ten minutes (its default, 4 s, would hide a server that
 * waits for the client to give them up). The Agent class is the one behind the global fetch,
 * taken from undici's documented global-dispatcher slot rather than a second copy of undici.
 */
async function patientFetch(): Promise<typeof fetch> {
  await fetch('data:,').then((r) => r.text());
  const slot = Symbol.for('undici.globalDispatcher.1');
  const global = (globalThis as Record<symbol, object | undefined>)[slot];
  if (!global) throw new Error("Node's fetch exposes no global dispatcher");
  const Agent = global.constructor as new (o: {
    keepAliveTimeout: number;
    keepAliveMaxTimeout: number;
  }) => object;
  const dispatcher = new Agent({ keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 });
  return ((input: RequestInfo | URL, init?: RequestInit) =>
    fetch(input, { ...init, dispatcher } as RequestInit)) as typeof fetch;
}

describe('/mcp and the official client dropping a held call', () => {
  // Without the fix close() waited for the client's idle sockets: here ten minutes, so the
  // test's own timeout is what fails it.
  it.each(ERAS)('(%s era) close() waits for no socket the client keeps', async (era) => {
    const own = await startServer({ store: 'memory', plugins: { mcpProgressIntervalMs: 20 } });
    const ownUrl = await own.listen();
    const engine = own.server.engine as Engine;
    const client = await connectMcp(ownUrl, KEYS.agent, era, await patientFetch());
    try {
      const id = nextAsked(engine);
      const aborter = new AbortController();
      const call = client.callTool(
        { name: 'ask_user', arguments: { text: 'Drop me', wait_seconds: 60 } },
        { signal: aborter.signal },
      );
      const qid = await id;
      await until(() => engine.waiterCount() > 0, 'the wait is held');
      aborter.abort();
      await expect(call).rejects.toThrow();
      // A 2026-era client drops the call's own stream, which releases the wait. A 2025-era client
      // posts notifications/cancelled, which a stateless server cannot route to the held call:
      // that wait runs on until close() ends it.
      if (era === 'modern') await until(() => engine.waiterCount() === 0, 'the waiter is released');
      expect((await engine.get(OPS, qid))?.status).toBe('PENDING');
      await own.close();
      expect(engine.waiterCount()).toBe(0);
    } finally {
      await client.close();
      await own.close().catch(() => undefined);
    }
  });
});
