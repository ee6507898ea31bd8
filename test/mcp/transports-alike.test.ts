// One shape on every MCP transport (docs/mcp.md): the /mcp endpoint and `tai mcp` over stdio, in
// both protocol eras, give a PENDING result the same keys (receipt null), refuse the same bad ask
// with the same text, and refuse the task methods to a client without the Tasks extension alike.
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { Client as McpClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gqlAt, REPO_ROOT } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { connectMcp, ERAS, type Era, textOf } from './mcp-client.ts';

const BIN = path.join(REPO_ROOT, 'bin/tai.mjs');

let t: TestServer;
let url: string;
beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  url = await t.listen();
});
afterAll(async () => {
  await t.close();
});

async function overStdio(era: Era): Promise<Client> {
  const client = new McpClient(
    { name: 'tai-alike-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const env = { PATH: process.env.PATH ?? '', TAI_URL: url, TAI_API_KEY: KEYS.agent };
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, cwd: REPO_ROOT }),
  );
  return client;
}

const TRANSPORTS = ERAS.flatMap((era) => [
  { name: `http ${era}`, connect: () => connectMcp(url, KEYS.agent, era) },
  { name: `stdio ${era}`, connect: () => overStdio(era) },
]);

describe.each(TRANSPORTS)('MCP over $name', ({ connect }) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  }, 30_000);
  afterAll(async () => {
    await client.close();
  });

  it('a PENDING result is {status, id, answer: null, receipt: null}', async () => {
    const asked = await client.callTool({ name: 'ask_user', arguments: { text: 'Alike?', wait_seconds: 0 } });
    const id = (asked.structuredContent as { id: string }).id;
    expect(asked.structuredContent).toStrictEqual({ status: 'PENDING', id, answer: null, receipt: null });
  });

  it('a SELECT without options is refused with the same text', async () => {
    const bad = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Pick', format: 'SELECT', wait_seconds: 0 },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe('BAD_USER_INPUT: options are required for SELECT questions');
  });

  it('tasks/get, tasks/update and tasks/cancel without the Tasks extension are -32021; nothing changes', async () => {
    const asked = await client.callTool({ name: 'ask_user', arguments: { text: 'Task?', wait_seconds: 0 } });
    const id = (asked.structuredContent as { id: string }).id;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = { taskId: id, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) };
      const refused = await client.request({ method, params } as never, z.unknown()).then(
        () => null,
        (err: unknown) => err as { code?: unknown },
      );
      expect(refused, method).toMatchObject({ code: -32021 });
    }
    const q = await gqlAt(url, KEYS.ops, 'query($id: ID!) { question(id: $id) { status } }', { id });
    expect(q.data).toMatchObject({ question: { status: 'PENDING' } });
  });
});
