// A restricted delegate pages through the questions handed to it (API.md §22), on both stores:
// the GraphQL `questions` connection (what the CLI's `interactions list` and the SDK's
// `questions()` read) and the REST stream list the questions of the people it acts for, each with
// its `audience` saying whom it is for, counted before paging and filtered by audience — and
// nothing of theirs once the delegation ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { AGENT } from '../support/engines.ts';
import { openSse, type SseReader } from '../support/processes.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const ALICE: Principal = { id: 'alice', roles: ['operator', 'agent'], restricted: true };

interface Listed {
  totalCount: number;
  hasNextPage: boolean;
  endCursor: string | null;
  ids: string[];
  audiences: (string | null)[];
}

/** Replayed ids up to interaction.ready. */
async function replayed(sse: SseReader): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const f = await sse.nextEvent();
    if (f === null) throw new Error('the stream ended');
    if (f.event === 'interaction.ready') return ids;
    expect(f.event).toBe('interaction.add');
    ids.push((JSON.parse(f.data) as { id: string }).id);
  }
}

for (const store of ['memory', 'redis'] as const) {
  describe(`a delegate’s paged listing and stream (${store})`, () => {
    let t: TestServer;
    let url: string;
    beforeAll(async () => {
      t = await startServer({ store });
      url = await t.listen();
    });
    afterAll(() => t.close());

    const ask = async (audience: string) =>
      (await t.server.engine.ask(AGENT, { text: 'ok?', format: 'TEXT', audience }, { holdSeconds: 0 }))
        .question.id;

    async function list(key: string, vars: { first?: number; after?: string; audience?: string }) {
      const r = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `query($first: Int, $after: String, $audience: String) {
            questions(first: $first, after: $after, filter: { audience: $audience }) {
              totalCount pageInfo { hasNextPage endCursor } edges { node { id audience } } } }`,
          variables: { first: vars.first ?? 50, after: vars.after ?? null, audience: vars.audience ?? null },
        }),
      });
      const body = (await r.json()) as {
        errors?: unknown;
        data: {
          questions: {
            totalCount: number;
            pageInfo: { hasNextPage: boolean; endCursor: string | null };
            edges: { node: { id: string; audience: string | null } }[];
          };
        };
      };
      expect(body.errors).toBeUndefined();
      const q = body.data.questions;
      return {
        totalCount: q.totalCount,
        hasNextPage: q.pageInfo.hasNextPage,
        endCursor: q.pageInfo.endCursor,
        ids: q.edges.map((e) => e.node.id),
        audiences: q.edges.map((e) => e.node.audience),
      } satisfies Listed;
    }

    it('lists the questions of the person it acts for, with whom each is for, while the delegation holds', async () => {
      const forAlice = [await ask('alice'), await ask('alice')];
      const forBob = await ask('bob');
      const forCarol = await ask('carol');

      const before = await list(KEYS.bob, {});
      expect(before.ids).toContain(forBob);
      expect(before.ids.some((id) => forAlice.includes(id))).toBe(false);

      await t.server.engine.presence.delegations.set(ALICE, { to: 'bob', until: Date.now() + 3600_000 });
      const during = await list(KEYS.bob, {});
      expect(during.ids).toEqual(expect.arrayContaining([...forAlice, forBob]));
      expect(during.ids).not.toContain(forCarol);
      // Newest first, and each says whom it is for.
      expect(during.ids.indexOf(forAlice[1]!)).toBeLessThan(during.ids.indexOf(forAlice[0]!));
      expect(during.audiences[during.ids.indexOf(forAlice[0]!)]).toBe('alice');
      expect(during.audiences[during.ids.indexOf(forBob)]).toBe('bob');
      expect(during.totalCount).toBe(before.totalCount + 2);

      // Counted before paging: one page of one, then the next, across both audiences.
      const first = await list(KEYS.bob, { first: 1 });
      expect(first.totalCount).toBe(during.totalCount);
      expect(first.hasNextPage).toBe(true);
      const second = await list(KEYS.bob, { first: 1, after: first.endCursor! });
      expect(second.ids).toHaveLength(1);
      expect(second.ids[0]).not.toBe(first.ids[0]);

      // Filtered by the person it acts for, or by someone it does not.
      const onlyAlice = await list(KEYS.bob, { audience: 'alice' });
      expect(new Set(onlyAlice.audiences)).toEqual(new Set(['alice']));
      expect(onlyAlice.ids).toEqual(expect.arrayContaining(forAlice));
      expect((await list(KEYS.bob, { audience: 'carol' })).ids).toEqual([]);

      // The REST stream replays them too.
      const { res, sse } = await openSse(`${url}/api/interactions/stream`, { headers: auth('bob') });
      try {
        expect(res.status).toBe(200);
        expect(await replayed(sse)).toEqual(expect.arrayContaining([...forAlice, forBob]));
      } finally {
        await sse.close();
      }

      expect(await t.server.engine.presence.delegations.end(ALICE)).toBe(true);
      const after = await list(KEYS.bob, {});
      expect(after.ids.some((id) => forAlice.includes(id))).toBe(false);
      expect(after.totalCount).toBe(before.totalCount);
      const { sse: again } = await openSse(`${url}/api/interactions/stream`, { headers: auth('bob') });
      try {
        const ids = await replayed(again);
        expect(ids).toContain(forBob);
        expect(ids.some((id) => forAlice.includes(id))).toBe(false);
      } finally {
        await again.close();
      }
    });

    it('an unrestricted operator’s listing is unchanged by delegations (it sees every question anyway)', async () => {
      const id = await ask('alice');
      await t.server.engine.presence.delegations.set(ALICE, { to: 'ops', until: Date.now() + 3600_000 });
      try {
        const listed = await list(KEYS.ops, { audience: 'alice' });
        expect(listed.ids).toContain(id);
      } finally {
        await t.server.engine.presence.delegations.end(ALICE);
      }
      expect((await list(KEYS.ops, { audience: 'alice' })).ids).toContain(id);
    });
  });
}
