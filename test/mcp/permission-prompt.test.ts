// permission_prompt (API.md §21) through the official MCP client, in both protocol eras, fed the
// arguments Claude Code sends to a --permission-prompt-tool (Claude Code CLI reference and the
// Agent SDK's permissions guide: {tool_name, input, tool_use_id}; it expects a text content whose
// JSON is {"behavior":"allow","updatedInput":{…}} or {"behavior":"deny","message":"…"}):
// allow, an edit as updatedInput, deny with the note, no decision → deny naming the pending
// question, a call with the same tool_use_id rejoining it, a policy deciding at once, and a task
// for a client that declares the Tasks extension.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';
import { connectMcp, ERAS, nextAsked, textOf } from './mcp-client.ts';
import { connectTaskSession } from './task-session.ts';

const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };
const bash = (command: string, id: string) => ({
  tool_name: 'Bash',
  input: { command, description: 'Run it' },
  tool_use_id: id,
});

let t: TestServer;
let url: string;
beforeAll(async () => {
  t = await startServer({ store: 'memory', plugins: { mcpTaskPollIntervalMs: 50 } });
  url = await t.listen();
});
afterAll(() => t.close());

for (const era of ERAS) {
  describe(`permission_prompt (${era})`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await connectMcp(url, KEYS.agent, era);
    });
    afterAll(() => client.close());

    const call = (args: Record<string, unknown>) =>
      client.callTool({ name: 'permission_prompt', arguments: args });
    const permission = (r: { content?: unknown }) => JSON.parse(textOf(r)) as Record<string, unknown>;

    async function decided(args: Record<string, unknown>, answer: unknown) {
      const asked = nextAsked(t.server.engine);
      const pending = call({ ...args, wait_seconds: 60 });
      const id = await asked;
      await t.server.engine.answer(OPS, id, answer);
      return { r: await pending, id };
    }

    it('is listed with its output schema', async () => {
      const { tools } = await client.listTools();
      const tool = tools.find((x) => x.name === 'permission_prompt');
      expect(tool?.inputSchema.properties).toHaveProperty('tool_use_id');
      expect(tool?.outputSchema?.properties).toHaveProperty('behavior');
    });

    it('allows with the input as updatedInput, and an edit as the edited input', async () => {
      const { r, id } = await decided(bash('npm test', `toolu_allow_${era}`), { decision: 'APPROVED' });
      expect(r.isError).toBeFalsy();
      expect(permission(r)).toEqual({
        behavior: 'allow',
        updatedInput: { command: 'npm test', description: 'Run it' },
      });
      expect((await t.server.engine.get(OPS, id))?.action).toMatchObject({
        name: 'claude-code.Bash',
        summary: '$ npm test',
      });

      const edited = { command: 'npm test -- --run', description: 'Run it' };
      const e = await decided(bash('npm test -- --watch', `toolu_edit_${era}`), {
        decision: 'APPROVED',
        arguments: edited,
      });
      expect(permission(e.r)).toEqual({ behavior: 'allow', updatedInput: edited });
    });

    it('denies with who rejected it and the note', async () => {
      const { r } = await decided(bash('rm -rf /tmp/cache', `toolu_deny_${era}`), {
        decision: 'REJECTED',
        note: 'use the cleanup script',
      });
      expect(permission(r)).toEqual({ behavior: 'deny', message: 'Rejected by ops: use the cleanup script' });
    });

    it('denies naming the pending question when the wait ends; the same tool_use_id rejoins it', async () => {
      const args = bash('git push', `toolu_pending_${era}`);
      const asked = nextAsked(t.server.engine);
      const first = permission(await call({ ...args, wait_seconds: 0 }));
      const id = await asked;
      expect(first).toEqual({
        behavior: 'deny',
        message: `No decision yet: question ${id} is still pending. Retrying with the same tool_use_id waits for it again.`,
      });
      expect(permission(await call({ ...args, wait_seconds: 0 })).message).toContain(id);
      await t.server.engine.answer(OPS, id, { decision: 'APPROVED' });
      // Decided: the same call asks again rather than replaying the approval.
      const again = nextAsked(t.server.engine);
      expect(permission(await call({ ...args, wait_seconds: 0 })).behavior).toBe('deny');
      expect(await again).not.toBe(id);
    });

    it('refuses arguments that are not a permission prompt, naming them', async () => {
      const r = await call({ tool_name: 'Bash' });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/^BAD_USER_INPUT: input/);
    });
  });
}

describe('permission_prompt with policies and tasks', () => {
  it('is decided at once by a policy', async () => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('admin'), 'content-type': 'application/json' },
      payload: {
        query: 'mutation($i: PolicyRuleInput!) { putPolicyRule(input: $i) { id } }',
        variables: {
          i: {
            id: 'prompt-allow-status',
            effect: 'ALLOW',
            match: {
              action: 'claude-code.Bash',
              arguments: { properties: { command: { const: 'git status' } } },
            },
          },
        },
      },
    });
    expect(r.json().errors).toBeUndefined();
    const client = await connectMcp(url, KEYS.agent, 'legacy');
    const result = await client.callTool({
      name: 'permission_prompt',
      arguments: bash('git status', 'toolu_policy'),
    });
    expect(JSON.parse(textOf(result))).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'git status', description: 'Run it' },
    });
    await client.close();
  });

  it('is a task for a client that declares the extension, completed with the permission text', async () => {
    const session = await connectTaskSession(url, KEYS.agent);
    const asked = nextAsked(t.server.engine);
    const execution = await session.session.callTool('permission_prompt', bash('make deploy', 'toolu_task'));
    expect(execution.kind).toBe('task');
    const id = await asked;
    expect(execution.handle?.taskId).toBe(id);
    await t.server.engine.answer(OPS, id, { decision: 'REJECTED', note: 'not today' });
    const outcome = await session.session.task(execution.handle!.taskId).result();
    expect(outcome.status).toBe('completed');
    const result = (outcome as { result: { content: unknown; structuredContent: unknown } }).result;
    expect(JSON.parse(textOf(result))).toEqual({ behavior: 'deny', message: 'Rejected by ops: not today' });
    expect(result.structuredContent).toEqual({ behavior: 'deny', message: 'Rejected by ops: not today' });
    await session.close();
  });
});
