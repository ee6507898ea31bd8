// Pending questions this process saw announced (ASKED), newest kept, bounded by count and by an
// estimate of their size. A question's spec never changes after it is asked, so an entry is a
// true copy of it, and what it lets an answer skip is only the read before the claim: the claim
// still checks the status atomically. An entry leaves at the question's resolution, at a resync
// (announcements may have been lost), or when newer ones push it out.
import type { QuestionRecord } from '../../domain/question.ts';
import { mediaBytesOf } from '../../domain/quotas.ts';

export interface AnnouncedLimits {
  maxEntries: number;
  /** Estimated bytes of every entry together. */
  maxBytes: number;
  /** A question estimated larger than this is not kept (it is read when needed). */
  maxEntryBytes: number;
}

export const ANNOUNCED_LIMITS: AnnouncedLimits = {
  maxEntries: 1024,
  maxBytes: 2 * 1024 * 1024,
  maxEntryBytes: 32 * 1024,
};

export interface Announced {
  /** The question as announced while pending, if this process still holds it. */
  get(id: string): QuestionRecord | undefined;
  /** ASKED keeps the question, a resolution drops it. */
  observe(type: string, q: QuestionRecord): void;
  /** The question was resolved: drop it (what observe does for a resolution, by id alone). */
  forget(id: string): void;
  clear(): void;
  size(): number;
}

function jsonChars(v: unknown): number {
  return v === null || v === undefined ? 0 : JSON.stringify(v).length;
}

/** A rough upper estimate of what a question holds in memory (UTF-16 strings, object overhead). */
export function estimatedBytes(q: QuestionRecord): number {
  let chars = q.text.length + (q.link?.length ?? 0) + q.id.length + q.askedBy.length;
  for (const o of q.options ?? []) chars += o.length + 8;
  chars += jsonChars(q.schema) + jsonChars(q.metadata) + jsonChars(q.verifier);
  return 1024 + 2 * chars + 2 * mediaBytesOf(q.media);
}

export function createAnnounced(limits: AnnouncedLimits = ANNOUNCED_LIMITS): Announced {
  // Insertion order is age: the first entry is the oldest, dropped first.
  const byId = new Map<string, { q: QuestionRecord; bytes: number }>();
  let bytes = 0;

  function drop(id: string): void {
    const e = byId.get(id);
    if (!e) return;
    byId.delete(id);
    bytes -= e.bytes;
  }

  return {
    get: (id) => byId.get(id)?.q,
    observe(type, q) {
      if (type !== 'ASKED' || q.status !== 'PENDING') {
        drop(q.id);
        return;
      }
      const size = estimatedBytes(q);
      if (size > limits.maxEntryBytes || byId.has(q.id)) return;
      byId.set(q.id, { q, bytes: size });
      bytes += size;
      for (const id of byId.keys()) {
        if (byId.size <= limits.maxEntries && bytes <= limits.maxBytes) break;
        drop(id);
      }
    },
    forget: drop,
    clear() {
      byId.clear();
      bytes = 0;
    },
    size: () => byId.size,
  };
}
