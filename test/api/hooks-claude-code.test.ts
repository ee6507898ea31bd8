// The coding agents' permission-hook door (API.md §21), fed Claude Code's and Codex's published
// PermissionRequest payloads (sources in test/support/hook-payloads.ts), on the memory store and
// on Redis: allow, deny with the note, an edit as updatedInput, no decision within `wait` → {},
// a retry joining the pending question and a new question once decided, a policy deciding at
// once, Codex's output without updatedInput, and the door's refusals (401, 400, 413).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { nextAsked } from '../mcp/mcp-client.ts';
import { claudeBash, claudePermissionRequest, codexPermissionRequest } from '../support/hook-payloads.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };
const AGENT: Principal = { id: 'agent', roles: ['agent'], restricted: false };
const CLAUDE = '/api/interactions/hooks/claude-code';
const CODEX = '/api/interactions/hooks/codex';
const MiB = 1024 * 1024;

for (const store of ['memory', 'redis'] as const) {
  describe(`permission hooks (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer({ store });
    });
    afterAll(() => t.close());

    const post = (url: string, body: unknown, headers: Record<string, string> = auth('agent')) =>
      t.server.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });

    /** Held asker calls of this instance (the engine's metrics source). */
    const held = () => (t.server.engine as unknown as { heldCount(): number }).heldCount();

    /**
     * The id of the next question asked that is still pending. On Redis an earlier question's
     * ASKED event can still be on its way when the next watch starts, so "the next ASKED" alone
     * may name the question before (already answered).
     */
    function askedFor(): Promise<string> {
      return new Promise((resolve) => {
        let done = false;
        const stop = t.server.engine.watch(OPS, {
          event(e) {
            if (e.type !== 'ASKED' || done) return;
            void t.server.engine.get(OPS, e.question.id).then((q) => {
              if (done || q?.status !== 'PENDING') return;
              done = true;
              stop();
              resolve(e.question.id);
            });
          },
          resync() {},
        });
      });
    }

    /** Posts a held hook request and answers its question once it is asked. */
    async function decided(url: string, body: unknown, answer: unknown) {
      const asked = askedFor();
      const pending = post(`${url}?wait=60`, body);
      const id = await asked;
      await t.server.engine.answer(OPS, id, answer);
      const r = await pending;
      return { r, id, q: (await t.server.engine.get(OPS, id))! };
    }

    it('allows: a person approves the Bash command; the APPROVAL carries the tool, the command and a receipt', async () => {
      const { r, q } = await decided(CLAUDE, claudeBash('npm test'), { decision: 'APPROVED' });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
      });
      expect(q).toMatchObject({
        format: 'APPROVAL',
        status: 'ANSWERED',
        askedBy: 'agent',
        answeredBy: 'ops',
      });
      expect(q.action).toMatchObject({
        name: 'claude-code.Bash',
        summary: '$ npm test',
        arguments: { command: 'npm test', description: 'Run the command', timeout: 120000 },
        editable: true,
      });
      expect(q.text).toBe(
        'Claude Code asks to use Bash in /Users/dev/my-project:\n$ npm test\nWhy: Run the command',
      );
      expect(q.metadata).toMatchObject({ hook: 'claude-code', sessionId: 'abc123' });
      expect(await t.server.engine.receipt(q)).toMatch(/^ey/);
      const log = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth('admin'), 'content-type': 'application/json' },
        payload: {
          query:
            'query($id: ID!) { auditLog(filter: { questionId: $id }) { edges { node { type actor } } } }',
          variables: { id: q.id },
        },
      });
      const types = log.json().data.auditLog.edges.map((e: { node: { type: string } }) => e.node.type);
      expect(types).toEqual(['ASKED', 'ANSWERED']);
    });

    it('denies with the name of who rejected it and their note', async () => {
      const { r } = await decided(CLAUDE, claudeBash('rm -rf node_modules'), {
        decision: 'REJECTED',
        note: 'not on the shared box',
      });
      expect(r.json()).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'Rejected by ops: not on the shared box' },
        },
      });
    });

    it('returns edited arguments as updatedInput', async () => {
      const edited = { command: 'npm test -- --run', description: 'Run the command', timeout: 120000 };
      const { r, q } = await decided(CLAUDE, claudeBash('npm test -- --watch'), {
        decision: 'APPROVED',
        arguments: edited,
      });
      expect(r.json()).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'allow', updatedInput: edited },
        },
      });
      expect(q.answer).toMatchObject({ arguments: edited });
    });

    it('shows the path and a diff excerpt of an Edit, and the URL of a WebFetch', async () => {
      const edit = claudePermissionRequest('Edit', {
        file_path: '/Users/dev/my-project/src/app.ts',
        old_string: 'const port = 3000;',
        new_string: 'const port = 4000;',
        replace_all: false,
      });
      const r = await post(`${CLAUDE}?wait=0`, edit);
      expect(r.json()).toEqual({});
      const fetchReq = claudePermissionRequest('WebFetch', {
        url: 'https://example.com/docs',
        prompt: 'Summarize',
      });
      expect((await post(`${CLAUDE}?wait=0`, fetchReq)).json()).toEqual({});
      const page = await t.server.engine.list(AGENT, { status: ['PENDING'] }, { first: 50, after: null });
      const byName = new Map(page.edges.map((e) => [e.node.action?.name, e.node]));
      const e = byName.get('claude-code.Edit')!;
      expect(e.action?.summary).toBe('Edit /Users/dev/my-project/src/app.ts');
      expect(e.text).toContain('- const port = 3000;\n+ const port = 4000;');
      expect(byName.get('claude-code.WebFetch')?.action?.summary).toBe('Fetch https://example.com/docs');
      for (const q of [e, byName.get('claude-code.WebFetch')!])
        await t.server.engine.cancel(AGENT, q.id, 'done');
    });

    it('answers {} when nobody decided within wait; a retry joins the same question; once decided, a new request asks again', async () => {
      const body = claudeBash('git push origin main', 'retry-session');
      const asked = nextAsked(t.server.engine);
      const first = await post(`${CLAUDE}?wait=0`, body);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({});
      const id = await asked;
      expect((await t.server.engine.get(OPS, id))?.status).toBe('PENDING');

      // The retry joins: held on the same question, it gets the decision.
      const retry = post(`${CLAUDE}?wait=60`, body);
      await vi.waitFor(() => expect(held()).toBe(1), { timeout: 10_000 });
      const second = await post(`${CLAUDE}?wait=0`, body);
      expect(second.json()).toEqual({});
      const mine = await t.server.engine.list(AGENT, { status: ['PENDING'] }, { first: 50, after: null });
      expect(
        mine.edges.filter((e) => e.node.action?.summary === '$ git push origin main').map((e) => e.node.id),
      ).toEqual([id]);
      await t.server.engine.answer(OPS, id, { decision: 'APPROVED' });
      expect((await retry).json()).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });

      // Decided: the same request is a new question, never the old approval replayed.
      const askedAgain = nextAsked(t.server.engine);
      expect((await post(`${CLAUDE}?wait=0`, body)).json()).toEqual({});
      const again = await askedAgain;
      expect(again).not.toBe(id);
      await t.server.engine.cancel(AGENT, again, 'done');
    });

    it('lets a policy decide at once, with the rule in the deny message', async () => {
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
      await put({
        id: 'hooks-allow-ls',
        effect: 'ALLOW',
        match: { action: 'claude-code.Bash', arguments: { properties: { command: { const: 'ls' } } } },
      });
      await put({
        id: 'hooks-deny-force-push',
        effect: 'DENY',
        match: { action: 'claude-code.*', arguments: { properties: { command: { pattern: '--force' } } } },
      });
      expect((await post(CLAUDE, claudeBash('ls'))).json()).toEqual({
        hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
      });
      expect((await post(CLAUDE, claudeBash('git push --force'))).json()).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'Rejected by policy:hooks-deny-force-push' },
        },
      });
      // The same request again is decided again (a new question), not replayed; wait at its cap.
      expect((await post(`${CLAUDE}?wait=600`, claudeBash('ls'))).json()).toMatchObject({
        hookSpecificOutput: { decision: { behavior: 'allow' } },
      });
    });

    it("answers Codex in Codex's shape: never updatedInput, its actions not editable", async () => {
      const { r, q } = await decided(CODEX, codexPermissionRequest('cargo test'), { decision: 'APPROVED' });
      expect(r.json()).toEqual({
        hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
      });
      expect(q.action).toMatchObject({ name: 'codex.Bash', summary: '$ cargo test', editable: false });
      const denied = await decided(CODEX, codexPermissionRequest('cargo publish'), {
        decision: 'REJECTED',
        note: 'release on Fridays only',
      });
      expect(denied.r.json()).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'Rejected by ops: release on Fridays only' },
        },
      });
    });

    it('refuses without a key (401), and a malformed body or query (400), asking nothing', async () => {
      const before = (await t.server.engine.list(OPS, { status: null }, { first: 1, after: null }))
        .totalCount;
      const none = await post(CLAUDE, claudeBash('ls'), {});
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
      const bad = async (url: string, body: unknown, field?: string) => {
        const r = await post(url, body);
        expect(r.statusCode).toBe(400);
        expect(r.json()).toMatchObject({ code: 'BAD_USER_INPUT', ...(field ? { field } : {}) });
        return r.json().error as string;
      };
      await bad(CLAUDE, '{not json');
      await bad(CLAUDE, '');
      await bad(CLAUDE, '[1]');
      await bad(CLAUDE, { ...claudeBash('ls'), hook_event_name: 'PreToolUse' }, 'hook_event_name');
      for (const missing of ['session_id', 'tool_name', 'tool_input']) {
        const body: Record<string, unknown> = claudeBash('ls');
        delete body[missing];
        await bad(CLAUDE, body, missing);
      }
      await bad(CLAUDE, { ...claudeBash('ls'), tool_input: 'ls' }, 'tool_input');
      expect(await bad(`${CLAUDE}?wait=601`, claudeBash('ls'), 'wait')).toContain('0 to 600');
      expect(await bad(`${CLAUDE}?wiat=5`, claudeBash('ls'), 'wiat')).toContain('wait');
      await bad(`${CLAUDE}?channel=nope`, claudeBash('ls'), 'input.channel');
      const after = (await t.server.engine.list(OPS, { status: null }, { first: 1, after: null })).totalCount;
      expect(after).toBe(before);
    });

    it('takes a body of 1 MiB (a tool_input over 64 KiB is not asked: {}) and refuses one byte more (413)', async () => {
      const before = (await t.server.engine.list(OPS, { status: null }, { first: 1, after: null }))
        .totalCount;
      const shell = JSON.stringify(claudePermissionRequest('Write', { file_path: '/tmp/x', content: '' }));
      const fill = MiB - Buffer.byteLength(shell);
      const atCap = shell.replace('"content":""', `"content":"${'a'.repeat(fill)}"`);
      expect(Buffer.byteLength(atCap)).toBe(MiB);
      const ok = await post(CLAUDE, atCap);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({});
      const over = await post(CLAUDE, `${atCap} `);
      expect(over.statusCode).toBe(413);
      expect(over.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      const after = (await t.server.engine.list(OPS, { status: null }, { first: 1, after: null })).totalCount;
      expect(after).toBe(before);
    });
  });
}

describe('permission hooks on two instances (redis)', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startServer({ store: 'redis' });
    b = await startServer({ store: 'redis', prefix: a.prefix });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('100 concurrent retries of one request across both instances make one question', async () => {
    const body = JSON.stringify(claudeBash('terraform apply', 'race-session'));
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).server.inject({
          method: 'POST',
          url: `${CLAUDE}?wait=0`,
          headers: { ...auth('agent'), 'content-type': 'application/json' },
          payload: body,
        }),
      ),
    );
    for (const r of replies) expect(r.json()).toEqual({});
    const page = await a.server.engine.list(OPS, { status: null }, { first: 10, after: null });
    expect(page.edges.filter((e) => e.node.action?.summary === '$ terraform apply')).toHaveLength(1);
  });
});
