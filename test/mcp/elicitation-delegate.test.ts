// MCP elicitation never acts for a person (API.md §13.1, §22; docs/people.md "Delegation"), on
// both stores, through the official MCP client: the form is the asking client's own user answering
// the question that client just asked, recorded as `mcp:<key id>`. That identity is no one's
// delegate — a delegation to an `mcp:` identity is refused — so even with alice's questions handed
// to the agent's own key id, the answer given in the client is the client user's, with no
// `onBehalfOf`. And a delegate cannot bring the person's question to its own client: a restricted
// key asks only its own audience.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { graphqlAt } from '../support/channel-server.ts';
import { KEYS, startServer, type TestServer, type Who } from '../support/server.ts';

const ALICE: Principal = { id: 'alice', roles: ['operator', 'agent'], restricted: true };

type Reply = { [key: string]: unknown; action: 'accept'; content: Record<string, boolean> };

for (const store of ['memory', 'redis'] as const) {
  describe(`MCP elicitation answers as the client's own user, never for a person (${store})`, () => {
    let t: TestServer;
    let base: string;
    beforeAll(async () => {
      t = await startServer({ store, env: { INTERACTIONS_MCP_STATE_KEY: 'k'.repeat(32) } });
      base = await t.listen();
    });
    afterAll(() => t?.close());

    const gql = graphqlAt(() => base);

    /** The official client (2026-07-28) on `who`'s key, whose user says yes to every form. */
    async function elicitingClient(who: Who, seen: string[]) {
      const client = new Client(
        { name: 'tai-delegate-test', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      client.setRequestHandler('elicitation/create', async (req): Promise<Reply> => {
        seen.push(String((req.params as { message?: unknown }).message));
        return { action: 'accept', content: { answer: true } };
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', base), {
          requestInit: { headers: { authorization: `Bearer ${KEYS[who]}` } },
        }),
      );
      return client;
    }

    it('a delegation to an mcp: identity is refused, and nothing is stored', async () => {
      const r = await gql(
        'mutation($to: String!, $until: DateTime!) { setDelegation(to: $to, until: $until) { __typename } }',
        { to: 'mcp:agent', until: new Date(Date.now() + 3600_000).toISOString() },
        'alice',
      );
      expect(r.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
      expect(await t.server.store.delegations.get('alice', Date.now())).toBeNull();
    });

    it('with alice’s questions handed to the agent’s key id, the client’s answer is still its user’s own', async () => {
      await t.server.engine.presence.delegations.set(ALICE, { to: 'agent', until: Date.now() + 3600_000 });
      const seen: string[] = [];
      const client = await elicitingClient('agent', seen);
      try {
        const r = await client.callTool({
          name: 'ask_user',
          arguments: {
            text: 'Refund 100 EUR for alice?',
            format: 'CONFIRM',
            audience: 'alice',
            answer_here: true,
            wait_seconds: 0,
          },
        });
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        expect(seen).toEqual(['Refund 100 EUR for alice?']);
        expect(r.structuredContent).toMatchObject({ status: 'ANSWERED', answer: true });
        const id = (r.structuredContent as { id: string }).id;
        const q = await gql('query($id: ID!) { question(id: $id) { answeredBy onBehalfOf } }', { id }, 'ops');
        expect(q.data).toEqual({ question: { answeredBy: 'mcp:agent', onBehalfOf: null } });
        const log = (await t.server.store.audit.page({ first: 10, questionId: id, types: ['ANSWERED'] }))
          .entries;
        expect(log).toHaveLength(1);
        expect(log[0]!.actor).toBe('mcp:agent');
        expect(log[0]!.detail).not.toHaveProperty('onBehalfOf');
      } finally {
        await client.close();
        await t.server.engine.presence.delegations.end(ALICE);
      }
    });

    it('a delegate cannot put the person’s question to its own client', async () => {
      await t.server.engine.presence.delegations.set(ALICE, { to: 'bob', until: Date.now() + 3600_000 });
      const seen: string[] = [];
      const client = await elicitingClient('bob', seen);
      try {
        const r = await client.callTool({
          name: 'ask_user',
          arguments: { text: 'Approve for alice?', format: 'CONFIRM', audience: 'alice', answer_here: true },
        });
        expect(r.isError).toBe(true);
        expect(JSON.stringify(r.content)).toContain('FORBIDDEN');
        expect(seen).toEqual([]);
      } finally {
        await client.close();
        await t.server.engine.presence.delegations.end(ALICE);
      }
    });
  });
}
