// The audit log port (API.md §17). Entries are appended by the same atomic step as the change
// they record (on Redis: audit_append in common.lua, called by the script that changes the
// question; in memory: MemoryAudit.append inside the synchronous step), as a numbered draft.
// The hash chain is added after, in seq order and in batches, off the change's own step: by the
// chaining worker of the instance holding the lease (engine/audit-chainer.ts), and by every
// read before it answers (chain()), so no read ever sees a draft (issue 46).
import type { AuditDetail, AuditEntry, AuditEntryType, AuditHead } from '../domain/audit.ts';

/** An entry that records no state change of its own (e.g. CALLBACK_REFUSED). */
export interface AuditAppend {
  type: AuditEntryType;
  questionId: string | null;
  actor: string | null;
  via: string | null;
  detail: AuditDetail | null;
  /** Epoch ms. */
  at: number;
}

export interface AuditQuery {
  /** Entries after this seq (a page's cursor); from the oldest kept when absent. */
  afterSeq?: number | null;
  /** Most entries returned. */
  first: number;
  questionId?: string | null;
  /** Epoch ms, inclusive. */
  since?: number | null;
  /** Epoch ms, exclusive. */
  until?: number | null;
  types?: readonly AuditEntryType[] | null;
}

export interface AuditPage {
  /** Matching entries, oldest first. */
  entries: AuditEntry[];
  /** The last seq looked at: the next page starts after it (it may be past the last match). */
  lastSeq: number;
  /** Whether entries after lastSeq may match (false once the chain head was reached). */
  hasMore: boolean;
}

/** Entries one page looks at, at most (a filter that matches rarely returns short pages). */
export const AUDIT_SCAN_LIMIT = 2000;

export interface AuditLog {
  /** Appends an entry in one atomic step of its own (for events that change no question). */
  append(entry: AuditAppend): Promise<void>;
  /** Chains every entry written so far (idempotent, safe on any number of instances at once). */
  chain(): Promise<AuditHead | null>;
  /**
   * Takes or renews the chaining lease for `owner` for `ms` (true when `owner` holds it now): the
   * chaining worker of one instance at a time chains in the background, so instances do not hash
   * the same drafts twice. A holder that dies lets it lapse; reads chain whoever holds it.
   */
  lease(owner: string, ms: number): Promise<boolean>;
  /** A page of entries, oldest first, after bringing the chain up to date. */
  page(q: AuditQuery): Promise<AuditPage>;
  /** The oldest kept seq and the chain head (null when nothing was ever written). */
  bounds(): Promise<{ first: number; head: AuditHead | null }>;
  /**
   * Drops chained entries older than `cutoff` (epoch ms) from the oldest end only; the first
   * kept entry's `prev` still names the last dropped one. Returns how many were dropped.
   */
  trim(cutoff: number): Promise<number>;
}

/** Whether an entry passes a query's filters (seq and paging aside). */
export function auditMatches(e: AuditEntry, q: AuditQuery, atMs: number): boolean {
  if (q.questionId && e.questionId !== q.questionId) return false;
  if (q.since != null && atMs < q.since) return false;
  if (q.until != null && atMs >= q.until) return false;
  if (q.types && q.types.length > 0 && !q.types.includes(e.type)) return false;
  return true;
}
