// A delegate's paged `questions` listing (API.md §22) includes what the rotation routed to the
// person it acts for, on both stores and two instances, through GraphQL: bob, in no group, pages
// through alice's on-call question while she is away (counted before paging, filtered by
// audience) and loses it when the delegation ends or expires; the question the rotation routes to
// erin the next week is never his; carol, no one's delegate, never sees any of them. A delegate
// who is also in the group (erin) lists each question once.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticatorWithGroups } from '../../src/app/people-setup.ts';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createGraphQLServer, type GraphQLServer } from '../../src/graphql/yoga.ts';
import { AGENT, type EngineSet, type StoreKind, startEngines } from '../support/engines.ts';
import { paymentsDirectory } from '../support/payments-rotation.ts';

const directory = paymentsDirectory();
const KEYS = {
  alice: 'alice-key-0123456789abcdef',
  bob: 'bob-key-00123456789abcdef',
  carol: 'carol-key-0123456789abcdef',
  erin: 'erin-key-00123456789abcdef',
} as const;
// The server's own wiring: the keys' principals, with the groups the directory gives them.
const authenticator = authenticatorWithGroups(
  createAuthenticator({
    accessControl: true,
    policy: DEFAULT_DOOR_POLICY,
    keyring: createKeyring(
      parsePrincipals(
        Object.entries(KEYS).map(([id, key]) => ({ id, key, roles: ['operator'], restricted: true })),
      ),
    ),
  }),
  directory,
);
const person = (id: string): Principal => directory.withGroups({ id, roles: ['operator'], restricted: true });
const ALICE = person('alice');

interface Listed {
  totalCount: number;
  ids: string[];
  nodes: { id: string; audience: string | null; routedTo: string | null }[];
}

const WEEK = 7 * 24 * 3600_000;

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`a delegate pages through the on-call questions routed to the person it acts for (${kind}, two instances)`, () => {
    // Tuesday of alice's week on call (a future date: Redis expires what it keeps by real time).
    let now = Date.UTC(2027, 0, 5, 12, 0);
    let set: EngineSet;
    let yogas: GraphQLServer[];
    beforeAll(async () => {
      set = await startEngines(kind, 2, {}, { directory, clock: () => now });
      const logger = pino({ level: 'silent' });
      yogas = set.engines.map((engine) => createGraphQLServer({ engine, authenticator, logger }));
    });
    afterAll(() => set.close());

    // A second apart, so newest-first is the order they were asked in.
    async function ask(audience: string) {
      now += 1000;
      const asked = await set.engines[0]!.ask(
        AGENT,
        { text: 'Refund 100 EUR?', format: 'CONFIRM', audience },
        { holdSeconds: 0 },
      );
      return asked.question;
    }

    async function page(
      yoga: GraphQLServer,
      key: string,
      vars: { first: number; after: string | null; audience: string | null },
    ) {
      const r = await yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `query($first: Int, $after: String, $audience: String) {
            questions(first: $first, after: $after, filter: { audience: $audience }) {
              totalCount pageInfo { hasNextPage endCursor } edges { node { id audience routedTo } } } }`,
          variables: vars,
        }),
      });
      const body = (await r.json()) as {
        errors?: unknown;
        data: {
          questions: {
            totalCount: number;
            pageInfo: { hasNextPage: boolean; endCursor: string | null };
            edges: { node: Listed['nodes'][number] }[];
          };
        };
      };
      expect(body.errors).toBeUndefined();
      return body.data.questions;
    }

    /** Every page, two at a time, on instance `at`: each question once, as many as counted. */
    async function listAll(
      at: number,
      who: keyof typeof KEYS,
      audience: string | null = null,
    ): Promise<Listed> {
      const nodes: Listed['nodes'] = [];
      let after: string | null = null;
      let totalCount = -1;
      for (;;) {
        const q = await page(yogas[at]!, KEYS[who], { first: 2, after, audience });
        if (totalCount === -1) totalCount = q.totalCount;
        expect(q.totalCount).toBe(totalCount);
        nodes.push(...q.edges.map((e) => e.node));
        if (!q.pageInfo.hasNextPage) break;
        after = q.pageInfo.endCursor;
      }
      const ids = nodes.map((n) => n.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(totalCount);
      return { totalCount, ids, nodes };
    }

    it('lists it while the delegation holds, never to anyone else, and not once it ends', async () => {
      const own = (await ask('bob')).id;
      const oncall = await ask('oncall:payments');
      expect(oncall.routedTo).toBe('alice');
      const before = await listAll(1, 'bob');
      expect(before.ids).toEqual([own]);

      await set.engines[0]!.presence.delegations.set(ALICE, { to: 'bob', until: now + 14 * 24 * 3600_000 });
      const direct = (await ask('alice')).id;
      const later = await ask('oncall:payments');
      // On the other instance, two at a time across bob's own, alice's and her rotation's.
      const during = await listAll(1, 'bob');
      expect(during.ids).toEqual([later.id, direct, oncall.id, own]);
      expect(during.nodes.find((n) => n.id === oncall.id)).toMatchObject({
        audience: 'oncall:payments',
        routedTo: 'alice',
      });
      // Filtered by the rotation: its questions routed to alice only.
      expect((await listAll(0, 'bob', 'oncall:payments')).ids).toEqual([later.id, oncall.id]);
      expect((await listAll(0, 'bob', 'alice')).ids).toEqual([direct]);

      // Carol acts for no one: nothing of alice's, whatever she filters by.
      expect((await listAll(1, 'carol')).ids).toEqual([]);
      expect((await listAll(0, 'carol', 'oncall:payments')).ids).toEqual([]);

      // Answered for alice, it stays listed (the index follows the status).
      expect((await set.engines[1]!.answer(person('bob'), later.id, true)).onBehalfOf).toBe('alice');
      expect((await listAll(0, 'bob', 'oncall:payments')).ids).toEqual([later.id, oncall.id]);

      // The next week the rotation routes to erin: that one is not alice's to hand on.
      now += WEEK;
      try {
        const erins = await ask('oncall:payments');
        expect(erins.routedTo).toBe('erin');
        const next = await listAll(1, 'bob');
        expect(next.ids).not.toContain(erins.id);
        expect(next.ids).toContain(oncall.id);
        expect((await listAll(1, 'bob', 'oncall:payments')).ids).toEqual([later.id, oncall.id]);
        expect((await listAll(0, 'carol', 'oncall:payments')).ids).toEqual([]);
      } finally {
        now -= WEEK;
      }

      expect(await set.engines[1]!.presence.delegations.end(ALICE)).toBe(true);
      const after = await listAll(0, 'bob');
      expect(after.ids).toEqual([own]);
      expect((await listAll(1, 'bob', 'oncall:payments')).ids).toEqual([]);
    });

    it('lists it no longer once the delegation has expired', async () => {
      const q = await ask('oncall:payments');
      await set.engines[0]!.presence.delegations.set(ALICE, { to: 'bob', until: now + 3600_000 });
      expect((await listAll(1, 'bob')).ids).toContain(q.id);
      now += 2 * 3600_000;
      try {
        expect((await listAll(1, 'bob')).ids).not.toContain(q.id);
        expect((await listAll(0, 'bob', 'oncall:payments')).ids).toEqual([]);
      } finally {
        now -= 2 * 3600_000;
        await set.engines[0]!.presence.delegations.end(ALICE);
      }
    });

    it('a delegate in the group lists each of the rotation’s questions once', async () => {
      const mine = await listAll(0, 'erin', 'oncall:payments');
      expect(mine.ids.length).toBeGreaterThan(0);
      await set.engines[0]!.presence.delegations.set(ALICE, { to: 'erin', until: now + 3600_000 });
      try {
        const acting = await listAll(1, 'erin', 'oncall:payments');
        expect(acting.ids).toEqual(mine.ids);
      } finally {
        await set.engines[0]!.presence.delegations.end(ALICE);
      }
    });
  });
}
