// The grant steps on both stores (API.md §20), each reply tag: give ('given', 'limit' at the
// giver's cap, expired grants dropped first), use ('used' with its count; 'gone' when missing,
// expired or used up, writing nothing), revoke (true once, then false); every step's audit entry
// and the generation every instance polls.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { Grant } from '../../src/domain/policy/grant.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { redisPair, uniquePrefix } from '../support/fixtures.ts';

const NOW = Date.UTC(2026, 11, 6, 12);
const grant = (id: string, o: Partial<Grant> = {}): Grant => ({
  id,
  scope: 'SAME_ARGUMENTS',
  asker: 'agent',
  action: 'ops.restart',
  actionDigest: `sha256:${'a'.repeat(64)}`,
  questionId: `q-${id}`,
  createdBy: 'ops',
  via: 'api',
  reach: { restricted: false, channel: null, recipient: null },
  createdAt: NOW,
  expiresAt: NOW + 3_600_000,
  maxUses: null,
  ...o,
});

for (const kind of ['memory', 'redis'] as const) {
  describe(`grant steps (${kind})`, () => {
    let store: QuestionStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      if (kind === 'memory') {
        store = createMemoryStore();
        close = () => store.close();
      } else {
        const conn = redisPair(inject('redisUrl'));
        store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix: uniquePrefix() });
        close = async () => {
          await store.close();
          await conn.close();
        };
      }
    });
    afterEach(() => close());

    const types = async () => (await store.audit.page({ first: 100 })).entries.map((e) => e.type);

    it('give: kept and audited, at the cap refused with nothing written; an expired one frees its place', async () => {
      const g0 = await store.grants.generation();
      expect(await store.grants.give(grant('grant-1'), 2, NOW)).toBe('given');
      expect(await store.grants.give(grant('grant-2', { expiresAt: NOW + 60_000 }), 2, NOW)).toBe('given');
      expect(await store.grants.give(grant('grant-3'), 2, NOW)).toBe('limit');
      expect(await types()).toEqual(['GRANT_GIVEN', 'GRANT_GIVEN']);
      expect(await store.grants.generation()).toBe(g0 + 2);
      expect((await store.grants.byPerson('ops', NOW)).map((g) => g.id).sort()).toEqual([
        'grant-1',
        'grant-2',
      ]);
      // grant-2 expired: the next give drops it and fits.
      expect(await store.grants.give(grant('grant-3'), 2, NOW + 60_000)).toBe('given');
      expect(await store.grants.get('grant-2')).toBeNull();
      expect(await store.grants.get('grant-3')).toMatchObject({
        id: 'grant-3',
        uses: 0,
        reach: { restricted: false },
      });
      const given = (await store.audit.page({ first: 100 })).entries[0]!;
      expect(given).toMatchObject({
        questionId: 'q-grant-1',
        actor: 'ops',
        via: 'api',
        detail: { grantId: 'grant-1' },
      });
    });

    it('use: counted up to maxUses (the last one removes it), gone when missing or expired', async () => {
      await store.grants.give(grant('grant-u', { maxUses: 2 }), 100, NOW);
      expect(await store.grants.use('grant-u', 'q1', NOW)).toBe('used');
      expect((await store.grants.get('grant-u'))?.uses).toBe(1);
      const g = await store.grants.generation();
      expect(await store.grants.use('grant-u', 'q2', NOW)).toBe('used');
      expect(await store.grants.generation()).toBe(g + 1);
      expect(await store.grants.use('grant-u', 'q3', NOW)).toBe('gone');
      expect(await store.grants.get('grant-u')).toBeNull();
      await store.grants.give(grant('grant-e'), 100, NOW);
      expect(await store.grants.use('grant-e', 'q4', NOW + 3_599_999)).toBe('used');
      expect(await store.grants.use('grant-e', 'q5', NOW + 3_600_000)).toBe('gone');
      expect(await store.grants.use('nope', 'q6', NOW)).toBe('gone');
      const used = (await store.audit.page({ first: 100, types: ['GRANT_USED'] })).entries;
      expect(used.map((e) => [e.questionId, e.detail?.use, e.actor])).toEqual([
        ['q1', 1, 'policy:grant-u'],
        ['q2', 2, 'policy:grant-u'],
        ['q4', 1, 'policy:grant-e'],
      ]);
    });

    it('revoke: once, audited; its uses stop at once', async () => {
      await store.grants.give(grant('grant-r'), 100, NOW);
      expect(await store.grants.revoke('grant-r', 'admin', NOW)).toBe(true);
      expect(await store.grants.revoke('grant-r', 'admin', NOW)).toBe(false);
      expect(await store.grants.use('grant-r', 'q1', NOW)).toBe('gone');
      expect(await types()).toEqual(['GRANT_GIVEN', 'GRANT_REVOKED']);
      expect(await store.grants.list()).toEqual([]);
    });
  });
}
