// Delegations in memory (contract: delegations.ts): the twin of redis/delegations.ts and its
// scripts; each set or end appends its audit entry in the same synchronous step.
import type { AuditDetail } from '../domain/audit.ts';
import type { Delegation } from '../domain/delegation.ts';
import { type DelegationStore, delegationAuditDetail } from './delegations.ts';

type Append = (
  type: 'DELEGATION_SET' | 'DELEGATION_ENDED',
  questionId: null,
  actor: string | null,
  via: string | null,
  detail: AuditDetail | null,
  at: number,
) => unknown;

export function createMemoryDelegations(append: Append): DelegationStore {
  const byFrom = new Map<string, Delegation>();
  const live = (from: string, now: number): Delegation | null => {
    const d = byFrom.get(from);
    if (d && d.until <= now) byFrom.delete(from);
    return d && d.until > now ? d : null;
  };
  return {
    async set(d) {
      byFrom.set(d.from, { ...d });
      append('DELEGATION_SET', null, d.from, 'api', delegationAuditDetail(d), d.setAt);
    },
    async end(from, actor, now) {
      const d = live(from, now);
      if (!d) return false;
      byFrom.delete(from);
      append('DELEGATION_ENDED', null, actor, 'api', { to: d.to }, now);
      return true;
    },
    async get(from, now) {
      const d = live(from, now);
      return d ? { ...d } : null;
    },
    async delegatorsOf(to, now) {
      const out: Delegation[] = [];
      for (const from of [...byFrom.keys()]) {
        const d = live(from, now);
        if (d?.to === to) out.push({ ...d });
      }
      return out.sort((a, b) => a.setAt - b.setAt || a.from.localeCompare(b.from));
    },
  };
}
