// The audit log (API.md §17): how long its entries are kept. Trimmed from the oldest end by the
// reaper's prune; the first kept entry still names the hash of the last trimmed one.
import { settingsArea, wholeNumber } from './fields.ts';

export interface AuditSettings {
  /** Days an audit entry is kept (INTERACTIONS_AUDIT_RETENTION_DAYS). */
  readonly auditRetentionDays: number;
}

export const auditSettings = settingsArea({
  // At most about a century: a longer span only overflows the date arithmetic.
  env: { INTERACTIONS_AUDIT_RETENTION_DAYS: wholeNumber(400, 1, 36_500) },
  read: (e): AuditSettings => ({ auditRetentionDays: e.INTERACTIONS_AUDIT_RETENTION_DAYS }),
});
