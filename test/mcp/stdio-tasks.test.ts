// Tasks through `tai mcp` (stdio): the bridge serves the same tools, so a 2026-07-28 client that
// declares the Tasks extension gets a task there too, read through the server over HTTP. Raw
// JSON-RPC over the SDK's stdio transport: the SDK Client refuses task results on this revision.
import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt, REPO_ROOT } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { envelope, type RpcResponse } from './task-session.ts';

const BIN = path.join(REPO_ROOT, 'bin/tai.mjs');
const ANSWER =
  'mutation($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id createdAt answeredAt } }';
const STATUS = 'query($id: ID!) { question(id: $id) { status } }';

let t: TestServer;
let transport: StdioClientTransport;
const waiting = new Map<number, (r: RpcResponse) => void>();
let lastId = 0;

/** One JSON-RPC request over the bridge; `tasks: false` leaves the extension out of its capabilities. */
function rpc(method: string, params: Record<string, unknown>, tasks = true): Promise<RpcResponse> {
  lastId += 1;
  const id = lastId;
  return new Promise((resolve, reject) => {
    waiting.set(id, resolve);
    transport
      .send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(tasks) } })
      .catch(reject);
  });
}

beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  const url = await t.listen();
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { PATH: process.env.PATH ?? '', TAI_URL: url, TAI_API_KEY: KEYS.agent },
    cwd: REPO_ROOT,
  });
  transport.onmessage = (m) => {
    const id = (m as { id?: unknown }).id;
    if (typeof id === 'number') waiting.get(id)?.(m as RpcResponse);
  };
  await transport.start();
}, 30_000);
afterAll(async () => {
  await transport?.close();
  await t?.close();
});

describe('tai mcp over stdio: tasks', () => {
  it('ask_user is a task; tasks/get is working, then completed with the answer', async () => {
    const created = await rpc('tools/call', { name: 'ask_user', arguments: { text: 'Over stdio?' } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId: string = created.result.taskId;
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'working' });
    const r = await gqlAt(t.url!, KEYS.ops, ANSWER, { id: taskId, answer: 'yes' });
    expect(r.errors).toBeUndefined();
    const done = await rpc('tasks/get', { taskId });
    expect(done.result).toMatchObject({
      status: 'completed',
      result: { structuredContent: { status: 'ANSWERED', id: taskId, answer: 'yes' } },
    });
    // The task's last change is the answer, not its creation.
    const { createdAt, answeredAt } = (r.data as { answer: { createdAt: string; answeredAt: string } })
      .answer;
    expect(done.result).toMatchObject({ createdAt, lastUpdatedAt: answeredAt });
    expect(answeredAt).not.toBe(createdAt);
  });

  it('a request that does not declare the extension is refused -32021 by every task method', async () => {
    const created = await rpc('tools/call', { name: 'ask_user', arguments: { text: 'Undeclared?' } });
    const taskId: string = created.result.taskId;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const r = await rpc(
        method,
        { taskId, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) },
        false,
      );
      expect(r.error, method).toMatchObject({ code: -32021 });
      expect(r.error?.message).toContain(`${method} needs the io.modelcontextprotocol/tasks extension`);
    }
    const q = await gqlAt(t.url!, KEYS.ops, STATUS, { id: taskId });
    expect(q.data).toMatchObject({ question: { status: 'PENDING' } });
  });

  it('tasks/cancel cancels the question', async () => {
    const created = await rpc('tools/call', { name: 'ask_user', arguments: { text: 'Cancel me?' } });
    const taskId: string = created.result.taskId;
    expect((await rpc('tasks/cancel', { taskId })).result).toBeDefined();
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
  });
});
