// Store policy rules in memory (API.md §20): the twin of redis/policies.ts and its scripts; each
// put or delete appends its POLICY_CHANGED entry in the same synchronous step.
import type { AuditDetail } from '../domain/audit.ts';
import type { PolicyStore, StoredPolicy } from './policies.ts';

type Append = (
  type: 'POLICY_CHANGED',
  questionId: null,
  actor: string | null,
  via: string | null,
  detail: AuditDetail | null,
  at: number,
) => unknown;

export function createMemoryPolicies(append: Append): PolicyStore {
  const rules = new Map<string, Omit<StoredPolicy, 'version'>>();
  const versions = new Map<string, number>();
  let generation = 0;
  return {
    async list() {
      return [...rules.values()].map((r) => ({ ...r, version: versions.get(r.id) ?? 1 }));
    },
    async generation() {
      return generation;
    },
    async put(id, rule, max, change) {
      if (!rules.has(id) && rules.size >= max) return 'limit';
      const version = (versions.get(id) ?? 0) + 1;
      versions.set(id, version);
      rules.set(id, { id, rule, createdBy: change.actor, createdAt: change.at });
      generation++;
      append(
        'POLICY_CHANGED',
        null,
        change.actor,
        'api',
        { ...change.detail, version: String(version) },
        change.at,
      );
      return { version };
    },
    async delete(id, change) {
      if (!rules.delete(id)) return false;
      generation++;
      append('POLICY_CHANGED', null, change.actor, 'api', change.detail, change.at);
      return true;
    },
  };
}
