// Separation of duties through MCP elicitation's own wire (API.md §13.1, §22): the asker's MCP
// client puts an APPROVAL to its own user (`answer_here`), and that user is the person the agent
// acts for. When the action names a requester (`action.requestedBy`), the client's Approve — and
// its Reject — is never recorded, alone or as a vote; the question stays pending for someone else,
// who decides it in the inbox. The official MCP client answers the elicitation.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlAt } from '../support/channel-server.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

let t: TestServer;
let base: string;

beforeAll(async () => {
  t = await startServer({ store: 'redis', env: { INTERACTIONS_MCP_STATE_KEY: 'k'.repeat(32) } });
  base = await t.listen();
});
afterAll(() => t?.close());

const gql = graphqlAt(() => base);

type Reply = { [key: string]: unknown; action: 'accept'; content: Record<string, string> };

/** The official client (2026-07-28), declaring form elicitation; its user always says `decision`. */
async function elicitingClient(decision: 'APPROVED' | 'REJECTED', seen: string[]) {
  const client = new Client(
    { name: 'tai-separation-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (req): Promise<Reply> => {
    seen.push(String((req.params as { message?: unknown }).message));
    return { action: 'accept', content: { decision } };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${KEYS.agent}` } },
    }),
  );
  return client;
}

const read = async (id: string) =>
  (await gql('query($id: ID!) { question(id: $id) { status answeredBy votes { by } } }', { id }, 'ops')).data!
    .question;

describe('MCP elicitation: separation of duties', () => {
  for (const requestedBy of ['oidc:ana', 'mcp:agent']) {
    for (const decision of ['APPROVED', 'REJECTED'] as const) {
      it(`an action requested for ${requestedBy}: the asker's client's ${decision} is not recorded, alone or as a vote`, async () => {
        const seen: string[] = [];
        const client = await elicitingClient(decision, seen);
        try {
          const action = { name: 'payments.refund', arguments: { amount: 9 }, requested_by: requestedBy };
          for (const quorum of [null, { approvals: 2 }]) {
            const text = `Refund for ${requestedBy} (${decision}, ${quorum ? 'quorum' : 'single'})?`;
            const r = await client.callTool({
              name: 'ask_user',
              arguments: {
                text,
                format: 'APPROVAL',
                action,
                ...(quorum ? { quorum } : {}),
                answer_here: true,
                wait_seconds: 0,
              },
            });
            // Refused before asking (BAD_USER_INPUT) or asked and the answer refused: either way
            // nothing the client's user said is on the question.
            // Asked, put to the client's user, and the answer refused: nothing of it is on the question.
            expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
            expect(r.structuredContent).toMatchObject({ status: 'PENDING' });
            expect(seen.at(-1)).toContain(text);
            const id = (r.structuredContent as { id: string }).id;
            expect(await read(id)).toMatchObject({ status: 'PENDING', answeredBy: null });
            expect((await read(id)).votes ?? []).toEqual([]);
            // Someone else decides it.
            const done = await gql(
              'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED"}) { status } }',
              { id },
              'ops',
            );
            expect(done.errors).toBeUndefined();
          }
        } finally {
          await client.close();
        }
      });
    }
  }

  it('the same client decides an action requested for nobody (the refusal is the rule, not the wire)', async () => {
    const seen: string[] = [];
    const client = await elicitingClient('APPROVED', seen);
    try {
      const r = await client.callTool({
        name: 'ask_user',
        arguments: {
          text: 'Refund for nobody in particular?',
          format: 'APPROVAL',
          action: { name: 'payments.refund', arguments: { amount: 9 } },
          answer_here: true,
        },
      });
      expect(r.structuredContent).toMatchObject({ status: 'ANSWERED' });
      expect(seen).toEqual([expect.stringContaining('Refund for nobody in particular?')]);
    } finally {
      await client.close();
    }
  });
});
