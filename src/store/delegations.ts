// Where delegations live (API.md §22): one record per person who is away, keyed by that person,
// and an index by delegate so "whose questions may I answer?" is one lookup. A set or an end
// and its audit entry (DELEGATION_SET, DELEGATION_ENDED) are one atomic step, on both stores;
// on Redis every instance reads the same records, so a delegation set on one holds on all.
// The rules (90 days, not to oneself, no chains) are the engine's: domain/delegation.ts.
import type { Delegation } from '../domain/delegation.ts';

export interface DelegationStore {
  /** Sets (or replaces) `d.from`'s delegation with its DELEGATION_SET entry, by `d.from`. */
  set(d: Delegation): Promise<void>;
  /** Ends `from`'s live delegation early with its DELEGATION_ENDED entry; false when none was live. */
  end(from: string, actor: string, now: number): Promise<boolean>;
  /** `from`'s delegation live at `now`, or null. */
  get(from: string, now: number): Promise<Delegation | null>;
  /** The live delegations naming `to` as delegate (the people `to` acts for), oldest first. */
  delegatorsOf(to: string, now: number): Promise<Delegation[]>;
}

/** The audit facts of a delegation: who receives and until when — never the reason (free text). */
export function delegationAuditDetail(d: Delegation): Record<string, string> {
  return { to: d.to, until: new Date(d.until).toISOString() };
}
