// The audit log in the memory store. append() is synchronous, so a memory store step that
// changes a question and appends its entry (a numbered draft) is one atomic step. As on Redis,
// the hash chain is added after, in seq order and in batches: by every read before it answers
// (page, bounds, trim) and by the engine's chaining worker, never inside the claim (issue 46).
import {
  type AuditDetail,
  type AuditDraft,
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
  /** Kept entries, oldest first; entries[0] has seq `first`. From index `chained` on: drafts. */
  const entries: (AuditEntry | AuditDraft)[] = [];
  const ats: number[] = [];
  let first = 1;
  let chained = 0;
  let lastSeq = 0;
  let head: AuditHead | null = null;
  let leaseOwner: string | null = null;
  let leaseUntil = 0;

  function append(
    type: AuditEntryType,
    questionId: string | null,
    actor: string | null,
    via: string | null,
    detail: AuditDetail | null,
    at: number,
  ): number {
    if (!enabled) return 0;
    const seq = ++lastSeq;
    entries.push({ seq, at, type, questionId, actor, via, detail });
    ats.push(at);
    return seq;
  }

  /** Chains every draft (synchronous: nothing is appended meanwhile). */
  function chain(): AuditHead | null {
    for (; chained < entries.length; chained++) {
      const e = chainAuditEntry(entries[chained] as AuditDraft, head?.hash ?? null);
      entries[chained] = e;
      head = { seq: e.seq, hash: e.hash };
    }
    return head;
  }

  const log: AuditLog = {
    async append(a) {
      append(a.type, a.questionId, a.actor, a.via, a.detail, a.at);
    },
    chain: async () => chain(),
    // The same lease as on Redis (two engines may share one memory store in a process).
    async lease(owner, ms) {
      const now = Date.now();
      if (leaseOwner !== null && leaseOwner !== owner && leaseUntil > now) return false;
      leaseOwner = owner;
      leaseUntil = now + ms;
      return true;
    },
    async bounds() {
      return { first, head: chain() };
    },
    async page(q) {
      chain();
      const start = Math.max((q.afterSeq ?? 0) + 1, first);
      const out: AuditEntry[] = [];
      let i = start - first;
      let scanned = 0;
      for (; i < entries.length && out.length < q.first && scanned < AUDIT_SCAN_LIMIT; i++, scanned++) {
        const e = entries[i] as AuditEntry;
        if (auditMatches(e, q, ats[i]!)) out.push(e);
      }
      return { entries: out, lastSeq: first + i - 1, hasMore: i < entries.length };
    },
    async trim(cutoff) {
      chain();
      let n = 0;
      while (n < entries.length && ats[n]! < cutoff) n++;
      entries.splice(0, n);
      ats.splice(0, n);
      first += n;
      chained -= n;
      return n;
    },
  };
  return { append, log };
}
