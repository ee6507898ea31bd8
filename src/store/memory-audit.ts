// The audit log in the memory store. append() is synchronous, so a memory store step that
// changes a question and appends its entry is one atomic step; it chains (hashes) at once.
import {
  type AuditDetail,
  type AuditEntry,
  type AuditEntryType,
  type AuditHead,
  chainAuditEntry,
} from '../domain/audit.ts';
import { AUDIT_SCAN_LIMIT, type AuditLog, auditMatches } from './audit.ts';

export interface MemoryAudit {
  /**
   * Appends one entry inside the caller's synchronous step (the memory twin of common.lua's
   * audit_append). `at` is epoch ms. Returns its seq (0 when the log is off).
   */
  append(
    type: AuditEntryType,
    questionId: string | null,
    actor: string | null,
    via: string | null,
    detail: AuditDetail | null,
    at: number,
  ): number;
  readonly log: AuditLog;
}

/** `enabled: false` is an internal switch for the bench (the log off); nothing is recorded. */
export function createMemoryAudit(enabled = true): MemoryAudit {
  /** Kept entries, oldest first; entries[0] has seq `first`. */
  const entries: AuditEntry[] = [];
  const ats: number[] = [];
  let first = 1;
  let head: AuditHead | null = null;

  function append(
    type: AuditEntryType,
    questionId: string | null,
    actor: string | null,
    via: string | null,
    detail: AuditDetail | null,
    at: number,
  ): number {
    if (!enabled) return 0;
    const seq = (head?.seq ?? 0) + 1;
    const e = chainAuditEntry({ seq, at, type, questionId, actor, via, detail }, head?.hash ?? null);
    entries.push(e);
    ats.push(at);
    head = { seq, hash: e.hash };
    return seq;
  }

  const log: AuditLog = {
    async append(a) {
      append(a.type, a.questionId, a.actor, a.via, a.detail, a.at);
    },
    chain: async () => head,
    async bounds() {
      return { first, head };
    },
    async page(q) {
      const start = Math.max((q.afterSeq ?? 0) + 1, first);
      const out: AuditEntry[] = [];
      let i = start - first;
      let scanned = 0;
      for (; i < entries.length && out.length < q.first && scanned < AUDIT_SCAN_LIMIT; i++, scanned++) {
        const e = entries[i]!;
        if (auditMatches(e, q, ats[i]!)) out.push(e);
      }
      return { entries: out, lastSeq: first + i - 1, hasMore: i < entries.length };
    },
    async trim(cutoff) {
      let n = 0;
      while (n < entries.length && ats[n]! < cutoff) n++;
      entries.splice(0, n);
      ats.splice(0, n);
      first += n;
      return n;
    },
  };
  return { append, log };
}
