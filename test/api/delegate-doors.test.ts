// Separation of duties for delegates through the API doors' own wires (API.md §22): bob hands his
// questions to rita; an action requested for bob is then refused to rita through GraphQL (the
// inbox's door), the REST answer door and the CLI — alone and as a vote — on both stores. Once
// the delegation ends, rita is just another approver and decides it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, PRINCIPALS, startServer, type TestServer } from '../support/server.ts';

const RITA = 'test-rita-key-00000000007';
const principals = [...PRINCIPALS, { id: 'rita', key: RITA, roles: ['operator'] }];
const AGENT: Principal = { id: 'agent', roles: ['agent'], restricted: false };

for (const store of ['memory', 'redis'] as const) {
  describe(`a delegate of the requester at the API doors (${store})`, () => {
    let t: TestServer;
    let url: string;
    beforeAll(async () => {
      t = await startServer({ store, env: { INTERACTIONS_API_KEYS: JSON.stringify(principals) } });
      url = await t.listen();
    });
    afterAll(() => t.close());

    const graphql = async (key: string, query: string, variables: Record<string, unknown>) => {
      const r = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return (await r.json()) as {
        data?: unknown;
        errors?: { message: string; extensions: { code: string } }[];
      };
    };
    const doors = {
      GraphQL: async (id: string) => {
        const r = await graphql(
          RITA,
          'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED"}) { status } }',
          {
            id,
          },
        );
        return r.errors?.[0]?.extensions.code ?? 'ok';
      },
      REST: async (id: string) => {
        const r = await fetch(`${url}/api/interactions/${id}/answer`, {
          method: 'POST',
          headers: { authorization: `Bearer ${RITA}`, 'content-type': 'application/json' },
          body: JSON.stringify({ answer: { decision: 'APPROVED' } }),
        });
        return r.status === 200 ? 'ok' : ((await r.json()) as { code: string }).code;
      },
      CLI: async (id: string) => {
        const r = await runCliInProcess(['interactions', 'answer', id, '--approve'], {
          env: { TAI_URL: url, TAI_API_KEY: RITA },
        });
        return r.code === 0 ? 'ok' : (/error: (\w+)/.exec(r.stderr)?.[1] ?? r.stderr);
      },
    };
    const ask = async (extra: Record<string, unknown> = {}) =>
      (
        await t.server.engine.ask(
          AGENT,
          {
            text: 'Refund for bob?',
            format: 'APPROVAL',
            action: { name: 'payments.refund', arguments: { amount: 5 }, requestedBy: 'bob' },
            ...extra,
          },
          { holdSeconds: 0 },
        )
      ).question.id;
    const read = async (id: string) => (await t.server.store.get(id))!;

    it('rita, acting for bob, approves bob’s request through no door; after the delegation ends she does', async () => {
      const until = new Date(Date.now() + 3600_000).toISOString();
      const set = await graphql(
        KEYS.bob,
        'mutation($to: String!, $until: DateTime!) { setDelegation(to: $to, until: $until) { to } }',
        { to: 'rita', until },
      );
      expect(set.errors).toBeUndefined();
      const ids: string[] = [];
      for (const [name, answer] of Object.entries(doors)) {
        const single = await ask();
        expect(await answer(single), name).toBe('FORBIDDEN');
        const voted = await ask({ quorum: { approvals: 2 } });
        expect(await answer(voted), `${name} vote`).toBe('FORBIDDEN');
        expect(await read(single)).toMatchObject({ status: 'PENDING', answeredBy: null });
        expect((await read(voted)).votes ?? []).toEqual([]);
        ids.push(single);
      }
      expect((await graphql(KEYS.bob, 'mutation { endDelegation }', {})).errors).toBeUndefined();
      for (const [i, answer] of Object.values(doors).entries()) {
        expect(await answer(ids[i]!)).toBe('ok');
        expect(await read(ids[i]!)).toMatchObject({ status: 'ANSWERED', answeredBy: 'rita' });
      }
    });
  });
}
