// Reading the audit log (API.md §17): pages for GraphQL and a streamed export for REST and the
// CLI, for admins and auditors only. Every read first brings the chain up to date (the store
// does it), so what is read is always hashed and chained.
import type { AuditEntry, AuditEntryType, AuditHead } from '../../domain/audit.ts';
import { AUDIT_ENTRY_TYPES } from '../../domain/audit.ts';
import { badInput, DomainError } from '../../domain/errors.ts';
import { canReadAudit, type Principal } from '../../domain/principal.ts';
import type { AuditQuery } from '../../store/audit.ts';
import type { QuestionStore } from '../../store/types.ts';

export const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 1000;
/** Entries one store read of an export returns (memory stays bounded by this, whatever the size). */
export const AUDIT_EXPORT_BATCH = 500;

export interface AuditFilter {
  questionId?: string | null;
  /** Epoch ms, inclusive. */
  since?: number | null;
  /** Epoch ms, exclusive. */
  until?: number | null;
  types?: readonly AuditEntryType[] | null;
}

export interface AuditEdge {
  node: AuditEntry;
  cursor: string;
}

export interface AuditPageResult {
  edges: AuditEdge[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** What an export covers (signed with its head, so a verifier knows what to expect). */
export interface AuditExportScope {
  questionId: string | null;
  since: string | null;
  until: string | null;
}

/** The export's last line, before signing: the last entry exported and how many there were. */
export interface AuditExportEnd {
  head: AuditHead | null;
  count: number;
  scope: AuditExportScope;
}

const CURSOR_PREFIX = 'audit:';

export function auditCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`).toString('base64url');
}

function seqOfCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const seq = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw badInput('after is not a cursor of the audit log', 'after');
  return seq;
}

function mayRead(p: Principal): void {
  if (!canReadAudit(p)) {
    throw new DomainError('FORBIDDEN', 'reading the audit log needs the admin or auditor role');
  }
}

function checkTypes(types: readonly string[] | null | undefined): void {
  for (const t of types ?? []) {
    if (!(AUDIT_ENTRY_TYPES as readonly string[]).includes(t)) {
      throw badInput(
        `unknown entry type ${JSON.stringify(t)} (expected one of ${AUDIT_ENTRY_TYPES.join(', ')})`,
        'filter.types',
      );
    }
  }
}

export function createAuditReader(store: QuestionStore) {
  return {
    /** A page of matching entries, oldest first (a sparse filter may give a short page with more to come). */
    async page(
      p: Principal,
      filter: AuditFilter,
      page: { first?: number | null; after?: string | null },
    ): Promise<AuditPageResult> {
      mayRead(p);
      checkTypes(filter.types);
      const first = page.first ?? AUDIT_PAGE_DEFAULT;
      if (!Number.isInteger(first) || first < 1 || first > AUDIT_PAGE_MAX) {
        throw badInput(`first must be a whole number from 1 to ${AUDIT_PAGE_MAX}`, 'first');
      }
      const q: AuditQuery = { ...filter, first, afterSeq: page.after ? seqOfCursor(page.after) : null };
      const r = await store.audit.page(q);
      return {
        edges: r.entries.map((e) => ({ node: e, cursor: auditCursor(e.seq) })),
        hasNextPage: r.hasMore,
        endCursor: r.entries.length > 0 || r.hasMore ? auditCursor(r.lastSeq) : null,
      };
    },

    /**
     * The entries of an export, oldest first, read a batch at a time (the caller writes each before
     * the next is read). `since` and `until` cut one contiguous run of the chain: it starts at the
     * first entry at or after `since` and stops before the first at or after `until`, so the run
     * can be checked link by link. `questionId` gives that question's entries only. Ends at the
     * chain head as it was when the export began; `end()` then says what was exported.
     */
    exportOf(p: Principal, filter: Omit<AuditFilter, 'types'>) {
      mayRead(p);
      let last: AuditHead | null = null;
      let count = 0;
      const scope: AuditExportScope = {
        questionId: filter.questionId ?? null,
        since: filter.since != null ? new Date(filter.since).toISOString() : null,
        until: filter.until != null ? new Date(filter.until).toISOString() : null,
      };
      async function* entries(): AsyncGenerator<AuditEntry[]> {
        const { head } = await store.audit.bounds();
        const top = head?.seq ?? 0;
        let after = 0;
        let started = filter.since == null;
        for (;;) {
          const r = await store.audit.page({
            afterSeq: after,
            first: AUDIT_EXPORT_BATCH,
            questionId: filter.questionId ?? null,
          });
          const batch: AuditEntry[] = [];
          for (const e of r.entries) {
            if (e.seq > top) break;
            const at = Date.parse(e.at);
            if (!started && at >= (filter.since ?? 0)) started = true;
            if (!started) continue;
            if (filter.until != null && at >= filter.until) return yield* finish(batch);
            batch.push(e);
          }
          after = r.lastSeq;
          if (batch.length > 0) {
            count += batch.length;
            const end = batch.at(-1)!;
            last = { seq: end.seq, hash: end.hash };
            yield batch;
          }
          if (!r.hasMore || after >= top) return;
        }
      }
      async function* finish(batch: AuditEntry[]): AsyncGenerator<AuditEntry[]> {
        if (batch.length === 0) return;
        count += batch.length;
        const end = batch.at(-1)!;
        last = { seq: end.seq, hash: end.hash };
        yield batch;
      }
      return {
        entries,
        end: (): AuditExportEnd => ({ head: last, count, scope }),
      };
    },
  };
}

export type AuditReader = ReturnType<typeof createAuditReader>;
