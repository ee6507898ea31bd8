// answer_here (API.md §13.1): the question is also put to the MCP client's own user, as a form
// elicitation in the 2026-07-28 multi-round-trip form, with the official client's elicitation
// handler standing in for that user. The state the client echoes is signed and used once.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../src/client/index.ts';
import { graphqlAt, manifestOf, slackChannelLines, startChannelServer } from '../support/channel-server.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { KEYS, type TestServer } from '../support/server.ts';
import { connectMcp, nextAsked } from './mcp-client.ts';
import { connectTaskSession, envelope, postRpc } from './task-session.ts';

const TOKEN = 'xoxb-elicit-token-0001';
let slack: FakeSlack;
let t: TestServer;
let base: string;

beforeAll(async () => {
  slack = await startFakeSlack(TOKEN);
  const manifest = await manifestOf(slackChannelLines(slack.apiUrl), {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: 'elicit-signing-secret-0001',
  });
  t = await startChannelServer(manifest, { INTERACTIONS_MCP_STATE_KEY: 'k'.repeat(32) });
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await slack?.close();
});

const gql = graphqlAt(() => base);

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

type Elicit = { message: string; requestedSchema: { properties: Record<string, { type: string }> } };
type Reply = {
  [key: string]: unknown;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean>;
};

/** The official client in the 2026-07-28 era, declaring form elicitation, answering with `user`. */
async function elicitingClient(
  user: (params: Elicit) => Promise<Reply>,
  era: 'modern' | 'legacy' = 'modern',
) {
  const client = new Client(
    { name: 'tai-elicit-test', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', (req) => user(req.params as unknown as Elicit));
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${KEYS.agent}` } },
    }),
  );
  return client;
}

type Wait = { status: string; id: string; answer: unknown; receipt?: string | null };
const APPROVE = { name: 'deploy.prod', summary: 'Deploy build 7', arguments: { build: 7 } };

/** The structured content of a completed task outcome's tool result. */
function structuredOf(outcome: { status: string }): Wait {
  expect(outcome.status).toBe('completed');
  return (outcome as unknown as { result: { structuredContent: Wait } }).result.structuredContent;
}

describe('answer_here: elicitation in the MCP client (2026-07-28)', () => {
  it('the client’s user answers: ANSWERED by mcp:<principal>, receipt via mcp, the Slack message edited', async () => {
    const seen: Elicit[] = [];
    const client = await elicitingClient(async (p) => {
      seen.push(p);
      return { action: 'accept', content: { answer: true } };
    });
    const asked = nextAsked(t.server.engine);
    const result = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Deploy to prod?', format: 'CONFIRM', channel: 'ops-slack', answer_here: true },
    });
    const id = await asked;
    expect(seen).toEqual([
      expect.objectContaining({ message: 'Deploy to prod?', requestedSchema: expect.any(Object) }),
    ]);
    expect(seen[0]!.requestedSchema.properties.answer!.type).toBe('boolean');
    const out = result.structuredContent as Wait;
    expect(out).toMatchObject({ status: 'ANSWERED', id, answer: true });
    expect(await question(id)).toEqual({ status: 'ANSWERED', answer: true, answeredBy: 'mcp:agent' });
    const jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    const claims = await verifyReceipt(out.receipt!, { jwks, questionId: id });
    expect(claims.outcome).toMatchObject({ status: 'ANSWERED', via: 'mcp' });
    // The Slack message sent with the question says it was answered.
    await slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.args.blocks).includes(id));
    const edit = await slack.waitFor('chat.update', (c) =>
      JSON.stringify(c.args).includes('Deploy to prod?'),
    );
    expect(JSON.stringify(edit.args)).toContain('mcp:agent');
    await client.close();
  });

  it('TEXT, SELECT and flat FORM are elicited with a fitting schema and answered', async () => {
    const replies: Record<string, Reply> = {
      TEXT: { action: 'accept', content: { answer: 'blue' } },
      SELECT: { action: 'accept', content: { answer: 'b' } },
      FORM: { action: 'accept', content: { name: 'Ada', age: 36 } },
    };
    let format = 'TEXT';
    const client = await elicitingClient(async () => replies[format]!);
    const cases = [
      { format: 'TEXT', args: {}, answer: 'blue' },
      { format: 'SELECT', args: { options: ['a', 'b'] }, answer: 'b' },
      {
        format: 'FORM',
        args: {
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name'],
          },
        },
        answer: { name: 'Ada', age: 36 },
      },
    ];
    for (const c of cases) {
      format = c.format;
      const r = await client.callTool({
        name: 'ask_user',
        arguments: { text: `A ${c.format}?`, format: c.format, ...c.args, answer_here: true },
      });
      expect(r.structuredContent, c.format).toMatchObject({ status: 'ANSWERED', answer: c.answer });
    }
    await client.close();
  });

  it('a declined elicitation leaves the question pending elsewhere; the inbox answer then arrives', async () => {
    const client = await elicitingClient(async () => ({ action: 'decline' }));
    const r = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Rename the repo?', answer_here: true, wait_seconds: 0 },
    });
    const pending = r.structuredContent as Wait;
    expect(pending.status).toBe('PENDING');
    expect((await question(pending.id)).status).toBe('PENDING');
    await gql(
      'mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { id } }',
      { id: pending.id, a: 'no' },
      'ops',
    );
    const waited = await client.callTool({
      name: 'await_answer',
      arguments: { id: pending.id, wait_seconds: 5 },
    });
    expect(waited.structuredContent).toMatchObject({ status: 'ANSWERED', answer: 'no' });
    expect((await question(pending.id)).answeredBy).toBe('ops');
    await client.close();
  });

  it('the first answer anywhere wins: an answer given meanwhile in the inbox stands', async () => {
    const client = await elicitingClient(async () => {
      const [q] = (await gql('{ questions(first: 1) { edges { node { id } } } }', {}, 'ops')).data!.questions
        .edges as { node: { id: string } }[];
      await gql('mutation($id: ID!) { answer(id: $id, answer: "inbox") { id } }', { id: q!.node.id }, 'ops');
      return { action: 'accept', content: { answer: 'client' } };
    });
    const r = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Who wins?', answer_here: true },
    });
    const out = r.structuredContent as Wait;
    expect(out).toMatchObject({ status: 'ANSWERED', answer: 'inbox' });
    expect(await question(out.id)).toMatchObject({ answer: 'inbox', answeredBy: 'ops' });
    await client.close();
  });

  it('sensitive questions, media, editable or HIGH APPROVALs and voters without the client are refused first', async () => {
    const client = await elicitingClient(async () => {
      throw new Error('never elicited');
    });
    for (const extra of [
      { sensitive: true },
      { media: [{ kind: 'IMAGE', url: 'https://example.com/a.png' }] },
      { format: 'FORM', schema: { type: 'object', properties: { nested: { type: 'object' } } } },
      // An APPROVAL whose action is editable, and a quorum whose voters leave mcp:agent out.
      { format: 'APPROVAL', action: { ...APPROVE, editable: true, arguments_schema: { type: 'object' } } },
      { format: 'APPROVAL', action: APPROVE, quorum: { approvals: 2, voters: ['ops', 'admin'] } },
      // A HIGH approval needs the approver's passkey, in the inbox (API.md §23).
      { format: 'APPROVAL', action: { ...APPROVE, assurance: 'HIGH' } },
    ]) {
      const before = (await gql('{ questions { totalCount } }', {}, 'ops')).data!.questions.totalCount;
      const r = await client.callTool({
        name: 'ask_user',
        arguments: { text: 'Not here', answer_here: true, ...extra },
      });
      expect(r.isError).toBe(true);
      expect((r.content as { text: string }[])[0]!.text).toMatch(/^BAD_USER_INPUT: answer_here: /);
      expect((await gql('{ questions { totalCount } }', {}, 'ops')).data!.questions.totalCount).toBe(before);
    }
    await client.close();
  });

  // 2025-era clients that declare elicitation keep a session and get elicitation/create
  // (elicitation-2025.test.ts).
  it('clients without elicitation get the question as before', async () => {
    const clients = [
      await connectMcp(base, KEYS.agent, 'modern'),
      await connectMcp(base, KEYS.agent, 'legacy'),
    ];
    for (const [n, client] of clients.entries()) {
      const r = await client.callTool({
        name: 'ask_user',
        arguments: { text: `No form here (${n})`, answer_here: true, wait_seconds: 0 },
      });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ status: 'PENDING' });
      await client.close();
    }
  });
});

describe('answer_here for APPROVAL (2026-07-28)', () => {
  const action = APPROVE;

  it('an APPROVAL without edits is Approve / Reject and a note; the answer is {decision, note}', async () => {
    const seen: Elicit[] = [];
    const client = await elicitingClient(async (p) => {
      seen.push(p);
      return { action: 'accept', content: { decision: 'REJECTED', note: 'not on a Friday' } };
    });
    const r = await client.callTool({
      name: 'ask_user',
      arguments: { text: 'Deploy?', format: 'APPROVAL', action, answer_here: true },
    });
    const out = r.structuredContent as Wait;
    expect(out).toMatchObject({
      status: 'ANSWERED',
      answer: { decision: 'REJECTED', note: 'not on a Friday' },
    });
    expect(seen[0]!.message).toContain('deploy.prod');
    expect(Object.keys(seen[0]!.requestedSchema.properties)).toEqual(['decision', 'note']);
    expect(await question(out.id)).toMatchObject({ answeredBy: 'mcp:agent' });
    await client.close();
  });

  it('with a quorum the client’s answer is one vote by mcp:<principal>; the question waits for more', async () => {
    const client = await elicitingClient(async () => ({
      action: 'accept',
      content: { decision: 'APPROVED' },
    }));
    const r = await client.callTool({
      name: 'ask_user',
      arguments: {
        text: 'Two approvals?',
        format: 'APPROVAL',
        action,
        quorum: { approvals: 2 },
        answer_here: true,
        wait_seconds: 0,
      },
    });
    const out = r.structuredContent as Wait;
    expect(out.status).toBe('PENDING');
    const votes = await gql(
      'query($id: ID!) { question(id: $id) { votes { by via decision } } }',
      { id: out.id },
      'ops',
    );
    expect(votes.data!.question.votes).toEqual([{ by: 'mcp:agent', via: 'mcp', decision: 'APPROVED' }]);
    await client.close();
  });
});

describe('answer_here with tasks (the official Tasks requester)', () => {
  it('the form is answered first; a declined one leaves a task that the inbox answer completes', async () => {
    let reply: Reply = { action: 'accept', content: { answer: 'inline' } };
    const kinds: string[] = [];
    const session = await connectTaskSession(base, KEYS.agent, async (request) => {
      kinds.push(request.kind);
      return reply as never;
    });
    const direct = await session.session.callTool('ask_user', { text: 'Inline first?', answer_here: true });
    expect(direct.kind).toBe('immediate');
    const { outcome } = await direct.settle();
    expect(structuredOf(outcome)).toMatchObject({
      status: 'ANSWERED',
      answer: 'inline',
    });

    reply = { action: 'decline' };
    const asked = nextAsked(t.server.engine);
    const later = await session.session.callTool('ask_user', { text: 'Declined here?', answer_here: true });
    const id = await asked;
    expect(later.kind).toBe('task');
    await gql('mutation($id: ID!) { answer(id: $id, answer: "inbox") { id } }', { id }, 'ops');
    const settled = await later.settle();
    expect(structuredOf(settled.outcome)).toMatchObject({
      status: 'ANSWERED',
      answer: 'inbox',
    });
    expect(kinds).toEqual(['elicitation', 'elicitation']);
    await session.close();
  });
});

describe('the signed requestState', () => {
  const CAPS = {
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  const call = (key: string, extra: Record<string, unknown>) =>
    postRpc(base, key, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'ask_user',
        arguments: { text: 'Signed?', answer_here: true, wait_seconds: 0 },
        _meta: { ...envelope(false), ...CAPS },
        ...extra,
      },
    });
  const accept = { inputResponses: { answer: { action: 'accept', content: { answer: 'forged' } } } };

  it('round one is input_required with an elicitation and a signed state', async () => {
    const r = await call(KEYS.agent, {});
    expect(r.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        answer: { method: 'elicitation/create', params: { mode: 'form', message: 'Signed?' } },
      },
    });
    expect(r.result.requestState).toMatch(/^v1\./);
  });

  it('a forged state is refused (-32602) and changes nothing', async () => {
    const first = await call(KEYS.agent, {});
    const state: string = first.result.requestState;
    const [v, body, mac] = state.split('.');
    // The same payload with another signature, and a payload naming another question.
    const forged = [
      `${v}.${body}.${'A'.repeat(mac!.length)}`,
      `${v}.${Buffer.from('{"p":{"q":"x","n":"y"},"exp":9999999999}').toString('base64url')}.${mac}`,
    ];
    for (const requestState of forged) {
      const r = await call(KEYS.agent, { ...accept, requestState });
      expect(r.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    }
    const pending = (await gql('{ questions(first: 1) { edges { node { id status } } } }', {}, 'ops')).data!
      .questions.edges[0].node;
    expect(pending.status).toBe('PENDING');
  });

  it('a state is used once: a replay after a decline is refused and the question stays pending', async () => {
    const asked = nextAsked(t.server.engine);
    const first = await call(KEYS.agent, {});
    const id = await asked;
    const requestState: string = first.result.requestState;
    const declined = await call(KEYS.agent, {
      requestState,
      inputResponses: { answer: { action: 'decline' } },
    });
    expect(declined.result.structuredContent).toMatchObject({ status: 'PENDING', id });
    const replay = await call(KEYS.agent, { ...accept, requestState });
    expect(replay.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    expect((await question(id)).status).toBe('PENDING');
  });

  it('a state minted for one principal is refused for another', async () => {
    const asked = nextAsked(t.server.engine);
    const first = await call(KEYS.agent, {});
    const id = await asked;
    const r = await call(KEYS.agent2, { ...accept, requestState: first.result.requestState });
    expect(r.error).toMatchObject({ code: -32602 });
    expect((await question(id)).status).toBe('PENDING');
  });
});
