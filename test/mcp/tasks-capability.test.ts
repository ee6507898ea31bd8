// The task methods answer only requests that declare io.modelcontextprotocol/tasks (API.md §13.1):
// the extension says -32021 (missing required client capability), judged per request, before the
// task is looked at, so a request without it learns nothing and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gqlAt } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { connectMcp, ERAS } from './mcp-client.ts';
import { envelope, postRpc, TASKS } from './task-session.ts';

const QUESTION = 'query($id: ID!) { question(id: $id) { id status } }';
const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
const MISSING_CAPABILITY = -32021;

let t: TestServer;
let url: string;
beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  url = await t.listen();
});
afterAll(async () => {
  await t.close();
});

/** A pending question of the agent's, asked without the extension (a plain PENDING result). */
async function pendingQuestion(): Promise<string> {
  const asked = await postRpc(url, KEYS.agent, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'ask_user', arguments: { text: 'Deploy?', wait_seconds: 0 }, _meta: envelope(false) },
  });
  expect(asked.result.structuredContent.status).toBe('PENDING');
  return asked.result.structuredContent.id;
}

async function statusOf(id: string): Promise<string> {
  const q = await gqlAt(url, KEYS.ops, QUESTION, { id });
  return (q.data as { question: { status: string } }).question.status;
}

function paramsFor(method: string, taskId: string): Record<string, unknown> {
  return { taskId, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) };
}

describe('task methods without the Tasks extension', () => {
  it.each(ERAS)(
    'the official client (%s era) is refused -32021 on each, and the question stays pending',
    async (era) => {
      const id = await pendingQuestion();
      const client = await connectMcp(url, KEYS.agent, era);
      try {
        for (const method of TASK_METHODS) {
          const refused = await client
            .request({ method, params: paramsFor(method, id) } as never, z.unknown())
            .then(
              () => null,
              (err: unknown) => err as { code?: unknown; message?: string; data?: unknown },
            );
          expect(refused, method).toMatchObject({
            code: MISSING_CAPABILITY,
            data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
          });
          expect(refused?.message).toContain(`${method} needs the ${TASKS} extension`);
        }
      } finally {
        await client.close();
      }
      expect(await statusOf(id)).toBe('PENDING');
    },
  );

  it('a 2026-07-28 request is judged by its own capabilities: the same client with and without', async () => {
    const id = await pendingQuestion();
    for (const method of TASK_METHODS) {
      const without = await postRpc(url, KEYS.agent, {
        jsonrpc: '2.0',
        id: 2,
        method,
        params: { ...paramsFor(method, id), _meta: envelope(false) },
      });
      expect(without.error, method).toMatchObject({ code: MISSING_CAPABILITY });
      expect(without.result).toBeUndefined();
    }
    // A task id that is nobody's is refused alike: nothing is looked up before the capability.
    const unknown = await postRpc(url, KEYS.agent, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tasks/get',
      params: { taskId: 'no-such-task', _meta: envelope(false) },
    });
    expect(unknown.error).toMatchObject({ code: MISSING_CAPABILITY });
    expect(await statusOf(id)).toBe('PENDING');

    const declared = await postRpc(url, KEYS.agent, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tasks/get',
      params: { taskId: id, _meta: envelope(true) },
    });
    expect(declared.result).toMatchObject({ taskId: id, status: 'working' });
    const cancelled = await postRpc(url, KEYS.agent, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tasks/cancel',
      params: { taskId: id, _meta: envelope(true) },
    });
    expect(cancelled.error).toBeUndefined();
    expect(await statusOf(id)).toBe('CANCELLED');
  });

  it('tasks/result and tasks/list are no methods of the extension: -32601 with or without it', async () => {
    const id = await pendingQuestion();
    for (const method of ['tasks/result', 'tasks/list']) {
      for (const tasks of [false, true]) {
        const r = await postRpc(url, KEYS.agent, {
          jsonrpc: '2.0',
          id: 6,
          method,
          params: { taskId: id, _meta: envelope(tasks) },
        });
        expect(r.error, `${method} ${tasks}`).toMatchObject({ code: -32601 });
      }
    }
    expect(await statusOf(id)).toBe('PENDING');
  });
});
