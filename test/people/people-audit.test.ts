// Claims and notification preferences are audited (API.md §17, §22), on both stores and across
// two instances: claimQuestion writes CLAIMED, an early unclaimQuestion UNCLAIMED (whose claim it
// ended), setNotificationPrefs NOTIFICATION_PREFS_CHANGED (the settings, nothing else) — each in
// the same store step as the change; a refused or empty change writes nothing, a lapse writes
// nothing, a claim replaced since it was read is not ended, and the chain still verifies. Through
// GraphQL, the entries read back from auditLog with their types.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, auditHashOf } from '../../src/domain/audit.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { CLAIM_MS } from '../../src/engine/people/claims.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

const ANN: Principal = { id: 'ann', roles: ['operator'], restricted: true };
const CY: Principal = { id: 'cy', roles: ['operator'], restricted: true };

async function entriesOf(store: QuestionStore): Promise<AuditEntry[]> {
  return (await store.audit.page({ first: 5000 })).entries;
}

async function chainVerifies(store: QuestionStore): Promise<void> {
  const entries = await entriesOf(store);
  expect(entries.length).toBeGreaterThan(0);
  let prev = entries[0]!.prev;
  for (const e of entries) {
    expect(e.prev).toBe(prev);
    expect(e.hash).toBe(auditHashOf(e));
    prev = e.hash;
  }
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`claims and notification preferences are audited (${kind}, two instances)`, () => {
    // A future instant: Redis expires what is kept by real time.
    let now = Date.now() + 3600_000;
    let set: EngineSet;
    beforeAll(async () => {
      set = await startEngines(kind, 2, {}, { clock: () => now });
    });
    afterAll(() => set.close());
    const one = () => set.engines[0]!;
    const two = () => set.engines[1]!;
    const store = () => set.stores[0]!;
    const ask = async (audience: string | null = null) =>
      (await one().ask(AGENT, { text: 'ok?', format: 'TEXT', audience }, { holdSeconds: 0 })).question;
    const typesOf = async (questionId: string) =>
      (await entriesOf(store())).filter((e) => e.questionId === questionId).map((e) => e.type);

    it('a claim writes CLAIMED; another’s claim too; an early end UNCLAIMED naming whose claim it was', async () => {
      const q = await ask('ann');
      const at = now;
      await one().presence.claim(ANN, q.id);
      const claimed = (await entriesOf(store())).filter((e) => e.type === 'CLAIMED' && e.questionId === q.id);
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({
        actor: 'ann',
        via: 'api',
        at: new Date(at).toISOString(),
        detail: { until: new Date(at + CLAIM_MS).toISOString() },
      });
      await two().presence.claim(OPS, q.id);
      await one().presence.unclaim(OPS, q.id);
      expect(await typesOf(q.id)).toEqual(['ASKED', 'CLAIMED', 'CLAIMED', 'UNCLAIMED']);
      const ended = (await entriesOf(store())).find((e) => e.type === 'UNCLAIMED' && e.questionId === q.id);
      expect(ended).toMatchObject({ actor: 'ops', via: 'api', detail: { claimedBy: 'ops' } });

      // An operator ends someone else's: the entry names whose it was.
      await one().presence.claim(ANN, q.id);
      await two().presence.unclaim(OPS, q.id);
      const last = (await entriesOf(store())).filter((e) => e.questionId === q.id).at(-1);
      expect(last).toMatchObject({ type: 'UNCLAIMED', actor: 'ops', detail: { claimedBy: 'ann' } });
      await chainVerifies(store());
    });

    it('a refused, empty or lapsed change writes nothing', async () => {
      const q = await ask('ann');
      await one().presence.claim({ ...OPS, id: 'ops9' }, q.id);
      const before = (await entriesOf(store())).length;
      // ann (restricted) may not end ops9's claim; cy may not see the question.
      await expect(two().presence.unclaim(ANN, q.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(two().presence.claim(CY, q.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(
        one().presence.prefs.set(ANN, { quietHours: { from: '25:00', to: '07:00', timeZone: 'UTC' } }),
      ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      // Lapsed: nothing to end, nothing written.
      now += CLAIM_MS;
      await one().presence.unclaim(OPS, q.id);
      expect(await one().presence.claimOf(q)).toBeNull();
      expect((await entriesOf(store())).length).toBe(before);
    });

    it('a claim replaced since it was read is not ended (the store compares what it holds)', async () => {
      const q = await ask('ann');
      await one().presence.claim(ANN, q.id);
      const key = `claim:${q.id}`;
      const read = await store().people.get(key, now);
      expect(read).not.toBeNull();
      await two().presence.claim(OPS, q.id);
      const before = (await entriesOf(store())).length;
      const audit = {
        type: 'UNCLAIMED' as const,
        questionId: q.id,
        actor: 'ann',
        via: 'api',
        detail: { claimedBy: 'ann' },
        at: now,
      };
      expect(await store().people.deleteAudited(key, read!, audit)).toBe(false);
      expect((await entriesOf(store())).length).toBe(before);
      expect((await one().presence.claimOf(q))?.by).toBe('ops');
    });

    it('setting quiet hours and a digest writes NOTIFICATION_PREFS_CHANGED with the settings only', async () => {
      const at = now;
      await one().presence.prefs.set(ANN, {
        quietHours: { from: '22:00', to: '07:00', timeZone: 'Europe/Paris' },
        digest: 'DAILY',
      });
      await two().presence.prefs.set(ANN, { digest: 'NONE' });
      const changed = (await entriesOf(store())).filter((e) => e.type === 'NOTIFICATION_PREFS_CHANGED');
      expect(changed.slice(-2)).toEqual([
        expect.objectContaining({
          questionId: null,
          actor: 'ann',
          via: 'api',
          at: new Date(at).toISOString(),
          detail: { digest: 'DAILY', quietFrom: '22:00', quietTo: '07:00', timeZone: 'Europe/Paris' },
        }),
        expect.objectContaining({
          actor: 'ann',
          detail: { digest: 'NONE', quietFrom: null, quietTo: null, timeZone: null },
        }),
      ]);
      expect(await one().presence.prefs.get('ann')).toEqual({ quietHours: null, digest: 'NONE' });
      await chainVerifies(store());
    });
  });

  describe(`the new entry types through GraphQL (${kind})`, () => {
    let t: TestServer;
    let url: string;
    beforeAll(async () => {
      t = await startServer({ store: kind });
      url = await t.listen();
    });
    afterAll(() => t.close());

    async function gql(key: string, query: string, variables: Record<string, unknown> = {}) {
      const r = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      // biome-ignore lint/suspicious/noExplicitAny: checked field by field.
      const body = (await r.json()) as { data?: any; errors?: unknown };
      expect(body.errors).toBeUndefined();
      return body.data;
    }

    it('claimQuestion, unclaimQuestion and setNotificationPrefs read back from auditLog by type', async () => {
      const q = (await t.server.engine.ask(AGENT, { text: 'ok?', format: 'TEXT' }, { holdSeconds: 0 }))
        .question;
      await gql(KEYS.ops, 'mutation($id: ID!) { claimQuestion(id: $id) { claimedBy } }', { id: q.id });
      await gql(KEYS.ops, 'mutation($id: ID!) { unclaimQuestion(id: $id) { claimedBy } }', { id: q.id });
      await gql(KEYS.ops, 'mutation { setNotificationPrefs(input: { digest: HOURLY }) { digest } }');
      const log = await gql(
        KEYS.admin,
        `{ auditLog(filter: { types: [CLAIMED, UNCLAIMED, NOTIFICATION_PREFS_CHANGED] }) {
             edges { node { type questionId actor detail } } } }`,
      );
      const nodes = log.auditLog.edges.map((e: { node: unknown }) => e.node);
      expect(nodes).toEqual([
        { type: 'CLAIMED', questionId: q.id, actor: 'ops', detail: { until: expect.any(String) } },
        { type: 'UNCLAIMED', questionId: q.id, actor: 'ops', detail: { claimedBy: 'ops' } },
        {
          type: 'NOTIFICATION_PREFS_CHANGED',
          questionId: null,
          actor: 'ops',
          detail: { digest: 'HOURLY', quietFrom: null, quietTo: null, timeZone: null },
        },
      ]);
    });
  });
}
