// Where store policy rules live (API.md §20): a small map of rule id → the rule as written (plain
// JSON, checked by the engine before it is put), a version counter per rule that only rises, and
// a generation every put or delete advances, which every instance polls to see changes within
// a second. A put or delete and its POLICY_CHANGED audit entry are one atomic step.
import type { AuditDetail } from '../domain/audit.ts';

export interface StoredPolicy {
  id: string;
  /** The rule as written (policyRuleJson), serialized. */
  rule: string;
  /** Its counter: 1 on first put, one more on every put since (a delete does not reset it). */
  version: number;
  createdBy: string | null;
  createdAt: number;
}

export interface PolicyChange {
  actor: string;
  at: number;
  /** The POLICY_CHANGED entry's facts (rule id, change, digest): never a secret. */
  detail: AuditDetail;
}

export interface PolicyStore {
  /** Every stored rule. */
  list(): Promise<StoredPolicy[]>;
  /** Advanced by every put and delete, on every instance sharing the store. */
  generation(): Promise<number>;
  /** Creates or replaces a rule; 'limit' when `max` other rules are kept already. */
  put(id: string, rule: string, max: number, change: PolicyChange): Promise<{ version: number } | 'limit'>;
  /** Deletes a rule; false when there was none. */
  delete(id: string, change: PolicyChange): Promise<boolean>;
}
