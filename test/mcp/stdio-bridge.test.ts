// `tai mcp` as a child process (bin/tai.mjs), spoken to by the official MCP client over stdio,
// forwarding to a real server over HTTP, in both protocol eras.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../src/client/index.ts';
import { gqlAt, REPO_ROOT } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { ERAS, type Era, nextAsked, textOf } from './mcp-client.ts';

const BIN = path.join(REPO_ROOT, 'bin/tai.mjs');
const ANSWER = 'mutation($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id } }';

let t: TestServer;
let url: string;

beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  url = await t.listen();
});
afterAll(async () => {
  await t.close();
});

async function bridge(key: string, era: Era): Promise<Client> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    TAI_URL: url,
    TAI_API_KEY: key,
    TAI_MCP_PROGRESS_MS: '30',
  };
  const client = new Client(
    { name: 'tai-stdio-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, cwd: REPO_ROOT }),
  );
  return client;
}

async function answer(id: string, value: unknown): Promise<void> {
  const r = await gqlAt(url, KEYS.ops, ANSWER, { id, answer: value });
  expect(r.errors).toBeUndefined();
}

describe.each(ERAS)('tai mcp over stdio (%s era)', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await bridge(KEYS.agent, era);
  }, 30_000);
  afterAll(async () => {
    await client.close();
  });

  it('round-trips ask → PENDING → answer → await_answer', async () => {
    expect(client.getProtocolEra()).toBe(era);
    const asked = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Bridge?', wait_seconds: 0, group_id: `stdio-${era}` },
    });
    const pending = asked.structuredContent as { status: string; id: string };
    expect(pending.status).toBe('PENDING');
    expect(textOf(asked)).toContain('await_answer');

    const got = await client.callTool({ name: 'get_question', arguments: { id: pending.id } });
    expect((got.structuredContent as { question: { groupId: string } }).question.groupId).toBe(
      `stdio-${era}`,
    );

    await answer(pending.id, 'over the bridge');
    const waited = await client.callTool({
      name: 'await_answer',
      arguments: { id: pending.id, wait_seconds: 10 },
    });
    const { receipt, ...rest } = waited.structuredContent as { receipt: string };
    expect(rest).toEqual({ status: 'ANSWERED', id: pending.id, answer: 'over the bridge' });
    // The bridge reads the decision receipt too; it checks against the server's published keys.
    const jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect((await verifyReceipt(receipt, { jwks, questionId: pending.id })).outcome.status).toBe('ANSWERED');

    const list = await client.callTool({ name: 'list_questions', arguments: { status: ['ANSWERED'] } });
    const ids = (list.structuredContent as { questions: { id: string }[] }).questions.map((q) => q.id);
    expect(ids).toContain(pending.id);
  });

  it('a blocking ask_user sends progress while it waits and is woken by the answer', async () => {
    const id = nextAsked(t.server.engine);
    const progress: number[] = [];
    const call = client.callTool(
      { name: 'ask_user', arguments: { text: 'Wake me', format: 'CONFIRM', wait_seconds: 60 } },
      {
        onprogress: (p) => {
          progress.push(p.progress);
          // Answer after two heartbeats: the wait was still running then.
          if (progress.length === 2) void id.then((qid) => answer(qid, false));
        },
      },
    );
    expect((await call).structuredContent).toMatchObject({ status: 'ANSWERED', answer: false });
    expect(progress.length).toBeGreaterThanOrEqual(2);
  });

  it('errors carry the API code: bad input, closed questions', async () => {
    const bad = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Pick', format: 'SELECT', wait_seconds: 0 },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^BAD_USER_INPUT: /);

    const asked = await client.callTool({ name: 'ask_user', arguments: { text: 'Drop', wait_seconds: 0 } });
    const qid = (asked.structuredContent as { id: string }).id;
    const cancelled = await client.callTool({ name: 'cancel_question', arguments: { id: qid } });
    expect((cancelled.structuredContent as { question: { status: string } }).question.status).toBe(
      'CANCELLED',
    );
    const waited = await client.callTool({ name: 'await_answer', arguments: { id: qid, wait_seconds: 5 } });
    expect(waited.structuredContent).toMatchObject({ status: 'CANCELLED', id: qid, answer: null });
  });

  it('await_answer with wait_seconds 0 reads the question once: answered before the call, or unknown', async () => {
    const asked = await client.callTool({ name: 'ask_user', arguments: { text: 'Zero?', wait_seconds: 0 } });
    const { id } = asked.structuredContent as { id: string };
    await answer(id, 'given before');
    const waited = await client.callTool({ name: 'await_answer', arguments: { id, wait_seconds: 0 } });
    expect(waited.structuredContent).toMatchObject({ status: 'ANSWERED', id, answer: 'given before' });

    const unknown = await client.callTool({
      name: 'await_answer',
      arguments: { id: 'no-such-question', wait_seconds: 0 },
    });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^NOT_FOUND: /);
  });

  it('argument errors start with the code and name the argument; unknown arguments are refused', async () => {
    const missing = await client.callTool({ name: 'ask_user', arguments: { wait_seconds: 0 } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^BAD_USER_INPUT: text: /);

    const misspelt = await client.callTool({
      name: 'await_answer',
      arguments: { id: 'no-such-question', wait_second: 0 },
    });
    expect(misspelt.isError).toBe(true);
    expect(textOf(misspelt)).toMatch(
      /^BAD_USER_INPUT: unknown argument "wait_second" \(the arguments are: id, wait_seconds\)$/,
    );
  });
});

describe('tai mcp with a key the server refuses', () => {
  it('exits 1 at start with the reason on standard error, and nothing on standard output', async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'mcp'],
        {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? '', TAI_URL: url, TAI_API_KEY: 'not-a-known-key' },
        },
        (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
      );
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: UNAUTHENTICATED: the server at .* refused the API key/);
    expect(run.stderr).not.toContain('not-a-known-key');
  }, 30_000);
});

describe('tai mcp with an operator-only key', () => {
  it('cannot ask: FORBIDDEN as an isError result', async () => {
    const client = await bridge(KEYS.ops, 'legacy');
    try {
      const r = await client.callTool({ name: 'ask_user', arguments: { text: 'May I?', wait_seconds: 0 } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/^FORBIDDEN: /);
    } finally {
      await client.close();
    }
  }, 30_000);
});
