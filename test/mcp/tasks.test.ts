// MCP tasks (API.md §13.1): a client that declares io.modelcontextprotocol/tasks gets a task for a
// wait, polls it with the official Tasks requester, on any instance, until the person answers.
import { taskId } from '@modelcontextprotocol/ext-tasks/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { nextAsked } from './mcp-client.ts';
import { connectTaskSession, envelope, postRpc, TASKS, type TaskClient } from './task-session.ts';

const ANSWER = 'mutation($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id status } }';
const QUESTION = 'query($id: ID!) { question(id: $id) { id status cancelReason } }';
const TIMES = 'query($id: ID!) { question(id: $id) { createdAt answeredAt } }';

let a: TestServer;
let b: TestServer;
let urlA: string;
let urlB: string;

beforeAll(async () => {
  // Two instances on one Redis and one key prefix: nothing of a task lives in either process.
  a = await startServer({ store: 'redis', plugins: { mcpTaskPollIntervalMs: 50 } });
  b = await startServer({ store: 'redis', prefix: a.prefix, plugins: { mcpTaskPollIntervalMs: 50 } });
  urlA = await a.listen();
  urlB = await b.listen();
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

type ToolResult = { structuredContent?: Record<string, unknown> };

describe('MCP tasks (2026-07-28 extension)', () => {
  let onA: TaskClient;
  let onB: TaskClient;
  beforeAll(async () => {
    onA = await connectTaskSession(urlA, KEYS.agent);
    onB = await connectTaskSession(urlB, KEYS.agent);
  });
  afterAll(async () => {
    await onA.close();
    await onB.close();
  });

  it('server/discover declares the extension', async () => {
    const r = await postRpc(urlA, KEYS.agent, {
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: { _meta: envelope(true) },
    });
    expect(r.result.capabilities.extensions).toHaveProperty([TASKS]);
  });

  it('ask_user is a task on one instance, working on the other, completed with the inbox answer', async () => {
    const asked = nextAsked(a.server.engine);
    const execution = await onA.session.callTool('ask_user', { text: 'Ship the release?' });
    expect(execution.kind).toBe('task');
    const id = await asked;
    expect(execution.handle?.taskId).toBe(id);

    const onOther = onB.session.task(taskId(id));
    const working = await onOther.snapshot();
    expect(working).toMatchObject({ taskId: id, status: 'working', suggestedPollIntervalMs: 50 });
    expect(working.retentionMs).toBeGreaterThan(0);

    // The person answers (the inbox speaks GraphQL) through instance A; B reports the result.
    const r = await gqlAt(urlA, KEYS.ops, ANSWER, { id, answer: 'yes' });
    expect(r.errors).toBeUndefined();
    const outcome = await onOther.result();
    expect(outcome.status).toBe('completed');
    const result = (outcome as { result: ToolResult }).result;
    expect(result.structuredContent).toMatchObject({ status: 'ANSWERED', id, answer: 'yes' });
    expect(typeof result.structuredContent?.receipt).toBe('string');
    // The task's last change is the answer, not its creation.
    const times = await gqlAt(urlA, KEYS.ops, TIMES, { id });
    const q = (times.data as { question: { createdAt: string; answeredAt: string } }).question;
    const polled = await postRpc(urlB, KEYS.agent, {
      jsonrpc: '2.0',
      id: 9,
      method: 'tasks/get',
      params: { taskId: id, _meta: envelope(true) },
    });
    expect(polled.result).toMatchObject({ status: 'completed', createdAt: q.createdAt });
    expect(polled.result.lastUpdatedAt).toBe(q.answeredAt);
    expect(polled.result.lastUpdatedAt).not.toBe(q.createdAt);

    // The requester that started it settles the same way.
    const settled = await execution.settle();
    expect(settled.outcome.status).toBe('completed');
    await execution.close();
  });

  it('cancelling the task cancels the question', async () => {
    const asked = nextAsked(a.server.engine);
    const execution = await onA.session.callTool('ask_user', { text: 'Drop the table?' });
    const id = await asked;
    await execution.cancel();
    const q = await gqlAt(urlB, KEYS.ops, QUESTION, { id });
    expect(q.data).toMatchObject({ question: { id, status: 'CANCELLED' } });
    const snapshot = await onB.session.task(taskId(id)).snapshot();
    expect(snapshot.status).toBe('cancelled');
  });

  it('await_answer is a task while pending and a plain result once answered', async () => {
    const asked = nextAsked(a.server.engine);
    const first = await postRpc(urlA, KEYS.agent, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'ask_user',
        arguments: { text: 'Rotate keys?', wait_seconds: 0 },
        _meta: envelope(false),
      },
    });
    // Without the extension the wait is as before: a PENDING tool result.
    expect(first.result.resultType).toBe('complete');
    expect(first.result.structuredContent.status).toBe('PENDING');
    const id = await asked;
    expect(first.result.structuredContent.id).toBe(id);

    const waiting = await onB.session.callTool('await_answer', { id });
    expect(waiting.kind).toBe('task');
    expect(waiting.handle?.taskId).toBe(id);
    await gqlAt(urlA, KEYS.ops, ANSWER, { id, answer: 'later' });
    const { outcome } = await waiting.settle();
    expect((outcome as { result: ToolResult }).result.structuredContent).toMatchObject({
      status: 'ANSWERED',
      answer: 'later',
    });

    const again = await onA.session.callTool('await_answer', { id });
    expect(again.kind).toBe('immediate');
    const { outcome: direct } = await again.settle();
    expect((direct as { result: ToolResult }).result.structuredContent).toMatchObject({ status: 'ANSWERED' });
  });

  it('a task id that is not one of the caller’s questions is refused alike, changing nothing', async () => {
    const asked = nextAsked(a.server.engine);
    const execution = await onA.session.callTool('ask_user', { text: 'Mine?' });
    const id = await asked;
    for (const [key, other] of [
      [KEYS.agent, 'no-such-task'],
      [KEYS.agent2, id],
    ] as const) {
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
        const r = await postRpc(urlB, key, {
          jsonrpc: '2.0',
          id: 3,
          method,
          params: {
            taskId: other,
            ...(method === 'tasks/update' ? { inputResponses: {} } : {}),
            _meta: envelope(true),
          },
        });
        expect(r.error).toMatchObject({ code: -32602, message: `No task ${other}.` });
      }
    }
    const q = await gqlAt(urlA, KEYS.ops, QUESTION, { id });
    expect(q.data).toMatchObject({ question: { status: 'PENDING' } });

    // The caller's own task: tasks/update acknowledges (nothing of ours waits for input) and
    // changes nothing; a request without a taskId is invalid params.
    const ack = await postRpc(urlB, KEYS.agent, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tasks/update',
      params: { taskId: id, inputResponses: { x: { action: 'accept' } }, _meta: envelope(true) },
    });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const bad = await postRpc(urlB, KEYS.agent, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tasks/get',
      params: { _meta: envelope(true) },
    });
    expect(bad.error?.code).toBe(-32602);
    const still = await gqlAt(urlA, KEYS.ops, QUESTION, { id });
    expect(still.data).toMatchObject({ question: { status: 'PENDING' } });
    await execution.cancel();
  });
});
