// Grants in memory (API.md §20): the twin of redis/grants.ts and its scripts; give, use and
// revoke each append their audit entry in the same synchronous step.

import { type GrantStore, grantGivenDetail, type StoredGrant } from './grants.ts';
import type { MemoryAudit } from './memory-audit.ts';

export function createMemoryGrants(append: MemoryAudit['append']): GrantStore {
  const grants = new Map<string, StoredGrant>();
  let generation = 0;
  const copy = (g: StoredGrant): StoredGrant => ({ ...g, reach: { ...g.reach } });
  const active = (person: string, now: number) =>
    [...grants.values()].filter((g) => g.createdBy === person && g.expiresAt > now);

  function drop(id: string): void {
    grants.delete(id);
    generation++;
  }

  return {
    async list() {
      return [...grants.values()].map(copy);
    },
    async byPerson(person, now) {
      return active(person, now).map(copy);
    },
    async get(id) {
      const g = grants.get(id);
      return g ? copy(g) : null;
    },
    async generation() {
      return generation;
    },
    async give(grant, max, now) {
      // Expired grants leave here, as the script drops them.
      for (const g of [...grants.values()]) if (g.expiresAt <= now) grants.delete(g.id);
      if (active(grant.createdBy, now).length >= max) return 'limit';
      grants.set(grant.id, { ...grant, reach: { ...grant.reach }, uses: 0 });
      generation++;
      append('GRANT_GIVEN', grant.questionId, grant.createdBy, grant.via, grantGivenDetail(grant), now);
      return 'given';
    },
    async use(id, questionId, now) {
      const g = grants.get(id);
      if (!g || g.expiresAt <= now || (g.maxUses !== null && g.uses >= g.maxUses)) return 'gone';
      g.uses++;
      append(
        'GRANT_USED',
        questionId,
        `policy:${id}`,
        'policy',
        { grantId: id, use: g.uses, maxUses: g.maxUses, createdBy: g.createdBy },
        now,
      );
      if (g.maxUses !== null && g.uses >= g.maxUses) drop(id);
      return 'used';
    },
    async revoke(id, actor, now) {
      const g = grants.get(id);
      if (!g) return false;
      drop(id);
      append('GRANT_REVOKED', null, actor, 'api', { grantId: id, createdBy: g.createdBy }, now);
      return true;
    },
  };
}
