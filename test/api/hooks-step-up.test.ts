// Step-up (API.md §23) where agents already ask (§21): a policy rule asks for the coding agents'
// Bash commands with `assurance: HIGH`. Through each hook door's own wire — the Claude Code and
// Codex hook doors and the MCP `permission_prompt` tool — the request becomes a HIGH approval
// that nothing on that path can approve: the hook answers nothing (the client falls back to its
// own prompt) or, for permission_prompt, denies naming the pending question; an approval with an
// API key is refused with STEP_UP_REQUIRED and the link to the inbox; and an ALLOW rule for the
// same command does not approve it either. A rejection needs no step-up.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { connectMcp, nextAsked, textOf } from '../mcp/mcp-client.ts';
import { claudeBash, codexPermissionRequest } from '../support/hook-payloads.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };
const LINK = (id: string) => `http://127.0.0.1:4000/?question=${id}`;

for (const store of ['memory', 'redis'] as const)
  describe(`the hook doors and a HIGH approval (${store})`, () => {
    let t: TestServer;
    let url: string;
    let client: Client;
    beforeAll(async () => {
      t = await startServer({ store });
      url = await t.listen();
      client = await connectMcp(url, KEYS.agent, 'modern');
      const put = async (input: unknown) => {
        const r = await t.server.inject({
          method: 'POST',
          url: '/graphql',
          headers: { ...auth('admin'), 'content-type': 'application/json' },
          payload: {
            query: 'mutation($i: PolicyRuleInput!) { putPolicyRule(input: $i) { id } }',
            variables: { i: input },
          },
        });
        expect(r.json().errors).toBeUndefined();
      };
      for (const client of ['claude-code', 'codex']) {
        await put({
          id: `${client}-bash-high`,
          effect: 'ASK',
          match: { action: `${client}.Bash` },
          ask: { assurance: 'HIGH' },
        });
      }
      // An ALLOW for one exact command: a rule cannot give a passkey either.
      await put({
        id: 'allow-deploy',
        effect: 'ALLOW',
        match: {
          action: 'claude-code.Bash',
          arguments: { properties: { command: { const: 'make deploy' } } },
        },
      });
    });
    afterAll(async () => {
      await client?.close();
      await t?.close();
    });

    const post = (door: string, body: unknown) =>
      t.server.inject({
        method: 'POST',
        url: `/api/interactions/hooks/${door}?wait=0`,
        headers: { ...auth('agent'), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const approveWithKey = (id: string) =>
      t.server.inject({
        method: 'POST',
        url: `/api/interactions/${id}/answer`,
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        payload: { answer: { decision: 'APPROVED' } },
      });
    async function highAndRefused(id: string) {
      const q = await t.server.engine.get(OPS, id);
      expect(q).toMatchObject({ status: 'PENDING', format: 'APPROVAL', action: { assurance: 'HIGH' } });
      const r = await approveWithKey(id);
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ code: 'FORBIDDEN', reason: 'STEP_UP_REQUIRED', url: LINK(id) });
      expect((await t.server.engine.get(OPS, id))?.status).toBe('PENDING');
    }

    for (const [door, body] of [
      ['claude-code', claudeBash('terraform apply')],
      ['codex', codexPermissionRequest('terraform apply')],
      ['claude-code', claudeBash('make deploy')],
    ] as const) {
      it(`${door} (${JSON.stringify(body.tool_input)}): answers nothing, and a key cannot approve what it asked`, async () => {
        const asked = nextAsked(t.server.engine);
        const r = await post(door, body);
        expect(r.statusCode).toBe(200);
        expect(r.json()).toEqual({});
        const id = await asked;
        await highAndRefused(id);
        // The rule that demanded the passkey is the one that asked (the ALLOW one did not decide).
        expect((await t.server.engine.get(OPS, id))?.policy).toMatchObject({
          ruleId: `${door}-bash-high`,
          effect: 'ASK',
        });
        // The hook's retry joins the same pending question and still answers nothing.
        expect((await post(door, body)).json()).toEqual({});
        // A rejection needs no step-up; the next retry asks anew (a decision is never replayed).
        const rejected = await t.server.engine.answer(OPS, id, { decision: 'REJECTED', note: 'not today' });
        expect(rejected.status).toBe('ANSWERED');
      });
    }

    it('permission_prompt: denies naming the pending HIGH question; a key cannot approve it', async () => {
      const asked = nextAsked(t.server.engine);
      const r = await client.callTool({
        name: 'permission_prompt',
        arguments: {
          tool_name: 'Bash',
          input: { command: 'terraform destroy', description: 'Tear down' },
          tool_use_id: `toolu_high_${store}`,
          wait_seconds: 0,
        },
      });
      const id = await asked;
      expect(JSON.parse(textOf(r))).toMatchObject({ behavior: 'deny', message: expect.stringContaining(id) });
      await highAndRefused(id);
    });
  });
