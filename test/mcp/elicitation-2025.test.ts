// answer_here for 2025-era clients (API.md §13.1): a client that declares form elicitation at
// `initialize` keeps a session, and ask_user sends it `elicitation/create` on the call's stream
// while the call holds. The official v1 SDK (@modelcontextprotocol/sdk) is the client; its
// elicitation handler stands in for the person using it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlAt, manifestOf, slackChannelLines } from '../support/channel-server.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { nextAsked } from './mcp-client.ts';

const TOKEN = 'xoxb-elicit-2025-token-01';
const PER_PRINCIPAL = 3;
let slack: FakeSlack;
let t: TestServer;
let base: string;

beforeAll(async () => {
  slack = await startFakeSlack(TOKEN);
  const manifest = await manifestOf(slackChannelLines(slack.apiUrl), {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: 'elicit-2025-signing-secret',
  });
  t = await startServer({
    store: 'redis',
    env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000', INTERACTIONS_MCP_STATE_KEY: 'k'.repeat(32) },
    plugins: {
      manifest,
      outbox: { pollMs: 50 },
      mcpSessionLimits: { max: 100, perPrincipal: PER_PRINCIPAL, idleMs: 30 * 60_000 },
    },
  });
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await slack?.close();
});

const gql = graphqlAt(() => base);
const answerInInbox = (id: string, answer: unknown) =>
  gql('mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { id } }', { id, a: answer }, 'ops');

async function question(id: string) {
  const r = await gql(
    'query($id: ID!) { question(id: $id) { status answer answeredBy votes { by decision } } }',
    { id },
    'ops',
  );
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null; votes: unknown[] };
}

type Elicit = { message: string; requestedSchema: { properties: Record<string, Record<string, unknown>> } };
type User = (params: Elicit, signal: AbortSignal) => Promise<ElicitResult>;

/** The v1 client, declaring form elicitation when `user` is given (then it keeps a session). */
async function v1Client(user: User | null, key: string = KEYS.agent, at = base) {
  const client = new Client(
    { name: 'tai-v1-test', version: '1.0.0' },
    user ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (user) {
    client.setRequestHandler(ElicitRequestSchema, (req, extra) =>
      user(req.params as unknown as Elicit, extra.signal),
    );
  }
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', at), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    // No standalone GET stream (a client need not open one): forms and their withdrawal must
    // travel on the tool call's own stream.
    fetch: (url, init) =>
      init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(url, init),
  });
  await client.connect(transport);
  return {
    client,
    sessionId: transport.sessionId,
    async close() {
      if (transport.sessionId) await transport.terminateSession();
      await client.close();
    },
  };
}

type Wait = { status: string; id: string; answer: unknown };
const ask = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: 'ask_user', arguments: { answer_here: true, ...args } });

/** A raw JSON-RPC POST to /mcp, as a 2025 client in a session would send it. */
const rawPost = (key: string, sessionId: string, at = base) =>
  fetch(new URL('/mcp', at), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

describe('answer_here in a 2025 session (elicitation/create)', () => {
  it('the client’s user accepts: ANSWERED by mcp:<key id>, and the Slack message is edited', async () => {
    const seen: Elicit[] = [];
    const v1 = await v1Client(async (p) => {
      seen.push(p);
      return { action: 'accept', content: { answer: 'ship it' } };
    });
    expect(v1.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const asked = nextAsked(t.server.engine);
    const r = await ask(v1.client, { text: 'Release notes?', channel: 'ops-slack', wait_seconds: 60 });
    const id = await asked;
    expect(seen).toEqual([
      expect.objectContaining({ message: 'Release notes?', requestedSchema: expect.any(Object) }),
    ]);
    expect(r.structuredContent).toMatchObject({ status: 'ANSWERED', id, answer: 'ship it' });
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answeredBy: 'mcp:agent' });
    await slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.args.blocks).includes(id));
    const edit = await slack.waitFor('chat.update', (c) => JSON.stringify(c.args).includes('Release notes?'));
    expect(JSON.stringify(edit.args)).toContain('mcp:agent');
    await v1.close();
  });

  it('a declined form leaves the question pending; the inbox answer is what the call returns', async () => {
    let declined!: () => void;
    const wasDeclined = new Promise<void>((resolve) => {
      declined = resolve;
    });
    const v1 = await v1Client(async () => {
      declined();
      return { action: 'decline' };
    });
    const asked = nextAsked(t.server.engine);
    const call = ask(v1.client, { text: 'Rename the repo?', wait_seconds: 120 });
    const id = await asked;
    await wasDeclined;
    expect((await question(id)).status).toBe('PENDING');
    await answerInInbox(id, 'no');
    const r = await call;
    expect(r.structuredContent).toMatchObject({ status: 'ANSWERED', id, answer: 'no' });
    expect((await question(id)).answeredBy).toBe('ops');
    await v1.close();
  });

  it('answered elsewhere while the form is open: the call returns and the form is withdrawn', async () => {
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => {
      opened = resolve;
    });
    let withdrawn!: () => void;
    const wasWithdrawn = new Promise<void>((resolve) => {
      withdrawn = resolve;
    });
    let first = true;
    const v1 = await v1Client((_p, signal) => {
      // The v1 SDK ignores notifications/cancelled for request id 0, the first request a session's
      // server sends; this session's first form is declined so that the one withdrawn is id 1.
      if (first) {
        first = false;
        return Promise.resolve({ action: 'decline' });
      }
      return new Promise<ElicitResult>((resolve) => {
        // The person never answers here; the server's notifications/cancelled aborts this.
        signal.addEventListener('abort', () => {
          withdrawn();
          resolve({ action: 'cancel' });
        });
        opened();
      });
    });
    await ask(v1.client, { text: 'Warm-up', wait_seconds: 0 });
    const asked = nextAsked(t.server.engine);
    const call = ask(v1.client, { text: 'Who is on call?', wait_seconds: 120 });
    const id = await asked;
    await isOpen;
    await answerInInbox(id, 'Grace');
    expect((await call).structuredContent).toMatchObject({ status: 'ANSWERED', answer: 'Grace' });
    await wasWithdrawn;
    expect(await question(id)).toMatchObject({ answer: 'Grace', answeredBy: 'ops' });
    await v1.close();
  });

  it('APPROVAL without edits: Approve / Reject and a note, with the action in the message', async () => {
    const seen: Elicit[] = [];
    const v1 = await v1Client(async (p) => {
      seen.push(p);
      return { action: 'accept', content: { decision: 'APPROVED', note: 'fine by me' } };
    });
    const action = {
      name: 'payments.refund',
      summary: 'Refund order 42',
      arguments: { order: 42, cents: 1999 },
    };
    const r = await ask(v1.client, { text: 'May I refund?', format: 'APPROVAL', action, wait_seconds: 60 });
    const out = r.structuredContent as Wait;
    expect(out).toMatchObject({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: action.arguments, note: 'fine by me' },
    });
    expect(seen[0]!.message).toContain('payments.refund');
    expect(seen[0]!.message).toContain('Refund order 42');
    expect(seen[0]!.message).toContain('"cents": 1999');
    expect(seen[0]!.requestedSchema.properties.decision).toMatchObject({
      oneOf: [
        { const: 'APPROVED', title: 'Approve' },
        { const: 'REJECTED', title: 'Reject' },
      ],
    });
    expect((await question(out.id)).answeredBy).toBe('mcp:agent');
    await v1.close();
  });
});

describe('2025 sessions: who gets one, and the session door', () => {
  it('a v1 client without elicitation stays stateless: PENDING, then await_answer', async () => {
    const v1 = await v1Client(null);
    expect(v1.sessionId).toBeUndefined();
    const r = await ask(v1.client, { text: 'No form for me', wait_seconds: 0 });
    const pending = r.structuredContent as Wait;
    expect(pending.status).toBe('PENDING');
    await answerInInbox(pending.id, 'later');
    const waited = await v1.client.callTool({ name: 'await_answer', arguments: { id: pending.id } });
    expect(waited.structuredContent).toMatchObject({ status: 'ANSWERED', answer: 'later' });
    await v1.close();
  });

  it('an unknown session id, or another key’s session, is 404; DELETE ends a session', async () => {
    const unknown = await rawPost(KEYS.agent, crypto.randomUUID());
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: -32001 } });

    const v1 = await v1Client(async () => ({ action: 'decline' }));
    const sessionId = v1.sessionId!;
    expect((await rawPost(KEYS.agent, sessionId)).status).toBe(200);
    const foreign = await rawPost(KEYS.agent2, sessionId);
    expect(foreign.status).toBe(404);
    await v1.close();
    expect((await rawPost(KEYS.agent, sessionId)).status).toBe(404);
  });

  it('past the per-principal cap a client is served statelessly, as before', async () => {
    const held = [];
    for (let i = 0; i < PER_PRINCIPAL; i++)
      held.push(await v1Client(async () => ({ action: 'decline' }), KEYS.bob));
    expect(held.every((c) => c.sessionId !== undefined)).toBe(true);
    const over = await v1Client(async () => ({ action: 'decline' }), KEYS.bob);
    expect(over.sessionId).toBeUndefined();
    const r = await ask(over.client, { text: 'Capped', wait_seconds: 0 });
    expect(r.structuredContent).toMatchObject({ status: 'PENDING' });
    // Another principal still gets a session.
    const other = await v1Client(async () => ({ action: 'decline' }), KEYS.alice);
    expect(other.sessionId).toBeDefined();
    await Promise.all([...held, over, other].map((c) => c.close()));
    const again = await v1Client(async () => ({ action: 'decline' }), KEYS.bob);
    expect(again.sessionId).toBeDefined();
    await again.close();
  });
});

describe('2025 sessions: expiry and shutdown', () => {
  it('the instance cap: at it every client has a session, one past it is served statelessly', async () => {
    const own = await startServer({
      store: 'redis',
      plugins: { mcpSessionLimits: { max: 2, perPrincipal: 5, idleMs: 30 * 60_000 } },
    });
    const ownBase = await own.listen();
    const connect = (key: string) => v1Client(async () => ({ action: 'decline' }), key, ownBase);
    const atCap = [await connect(KEYS.agent), await connect(KEYS.bob)];
    expect(atCap.every((c) => c.sessionId !== undefined)).toBe(true);
    const past = await connect(KEYS.alice);
    expect(past.sessionId).toBeUndefined();
    const r = await ask(past.client, { text: 'Past the cap', wait_seconds: 0 });
    expect(r.structuredContent).toMatchObject({ status: 'PENDING' });
    // A closed session frees its place.
    await atCap[0]!.close();
    const again = await connect(KEYS.alice);
    expect(again.sessionId).toBeDefined();
    await Promise.all([atCap[1]!, past, again].map((c) => c.close()));
    await own.close();
  });

  it('random session ids and bodies on a 2025 session request never get a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), fc.jsonValue({ maxDepth: 3 }), async (id, body) => {
        const res = await fetch(new URL('/mcp', base), {
          method: 'POST',
          headers: {
            authorization: `Bearer ${KEYS.agent}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-06-18',
            ...(/^[\x21-\x7e]+$/.test(id) ? { 'mcp-session-id': id } : {}),
          },
          body: JSON.stringify(body),
        });
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });

  it('an idle session is reclaimed when a cap is reached, and its id is then 404', async () => {
    // Idle time 0: every session with nothing in flight counts as expired at the next sweep.
    const own = await startServer({
      store: 'redis',
      plugins: { mcpSessionLimits: { max: 100, perPrincipal: 1, idleMs: 0 } },
    });
    const ownBase = await own.listen();
    const connect = () => v1Client(async () => ({ action: 'decline' }), KEYS.agent, ownBase);
    const first = await connect();
    const second = await connect();
    expect(second.sessionId).toBeDefined();
    expect(second.sessionId).not.toBe(first.sessionId);
    expect((await rawPost(KEYS.agent, first.sessionId!, ownBase)).status).toBe(404);
    await own.close();
    await Promise.all([first.client.close(), second.client.close()]);
  });
});
