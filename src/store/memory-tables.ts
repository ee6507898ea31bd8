// The memory store's state: the Maps that stand in for Redis keys, expiring lazily as they are
// read, and the steps every operation shares (read a live entry, resolve, announce, sort).

import { type AuditDetail, type AuditEntryType, auditViaOf } from '../domain/audit.ts';
import type { FiredStep } from '../domain/escalation.ts';
import type { QuestionRecord, QuestionSpec, Resolution, Vote } from '../domain/question.ts';
import { recordOf } from '../domain/question.ts';
import type { Cursor } from './listing.ts';
import { compareOldestFirst, matchesFilter, onlyPending } from './listing.ts';
import { createMemoryAudit } from './memory-audit.ts';
import { createMemoryOutbox, type MemoryOutbox } from './memory-outbox.ts';
import { eventOf, type ListFilter, type StoreEvent, type StoreListener } from './types.ts';

export interface Entry {
  spec: QuestionSpec;
  resolution: Resolution | null;
  expiresAt: number;
  ticketHash: string | null;
  idemKey: string | null;
  followUps: readonly string[];
  /** What its media counts against its asker's and the server's media caps while pending. */
  mediaBytes: number;
  /** Votes cast while pending (questions with a quorum), oldest first. */
  votes?: Vote[];
  /** What each fired escalation step recorded, by step index (§18). */
  fired: Map<number, FiredStep>;
}

/** One asker's share of the pending backlog. */
interface Held {
  pending: number;
  mediaBytes: number;
}

export interface Expiring<T> {
  value: T;
  expiresAt: number;
}

export interface Sorted {
  cursor: Cursor;
  e: Entry;
}

export type MemoryTables = ReturnType<typeof createMemoryTables>;

export function record(e: Entry): QuestionRecord {
  return recordOf(e.spec, e.resolution, e.votes);
}

export function createMemoryTables(clock: () => number, auditOn = true) {
  const entries = new Map<string, Entry>();
  const pendingIds = new Set<string>();
  const tickets = new Map<string, Expiring<string>>();
  const reservations = new Map<string, Expiring<string>>();
  const idem = new Map<string, Expiring<string>>();
  const replies = new Map<string, Expiring<unknown>>();
  /** seenOnce: inbound message keys → when first seen. */
  const seen = new Map<string, Expiring<number>>();
  const listeners = new Set<StoreListener>();
  /** Escalation steps not yet fired, `<id>#<index>` → when due (the Redis `escalations` set). */
  const escalations = new Map<string, number>();
  const outbox: MemoryOutbox = createMemoryOutbox(clock);
  /** The audit log: append inside a step that changes a question (the twin of audit_append). */
  const audit = createMemoryAudit(auditOn);
  const held = new Map<string, Held>();
  const totals = { mediaBytes: 0 };
  /** Each owner's live prepareExternal reservations: reservation key → expiresAt. */
  const reservedBy = new Map<string, Map<string, number>>();

  /** How many reservations `owner` holds that are still alive (expired ones are dropped). */
  function reservedCount(owner: string): number {
    const mine = reservedBy.get(owner);
    if (!mine) return 0;
    const now = clock();
    for (const [key, expiresAt] of mine) if (expiresAt <= now) mine.delete(key);
    if (mine.size === 0) reservedBy.delete(owner);
    return mine.size;
  }

  function addReservation(owner: string, key: string, ticketHash: string, expiresAt: number): void {
    reservations.set(key, { value: ticketHash, expiresAt });
    const mine = reservedBy.get(owner) ?? new Map<string, number>();
    mine.set(key, expiresAt);
    reservedBy.set(owner, mine);
  }

  /** A reservation asked: it stops counting (its question counts instead). */
  function consumeReservation(owner: string, key: string): void {
    reservations.delete(key);
    const mine = reservedBy.get(owner);
    mine?.delete(key);
    if (mine?.size === 0) reservedBy.delete(owner);
  }

  function heldBy(askedBy: string): Held {
    return held.get(askedBy) ?? { pending: 0, mediaBytes: 0 };
  }

  /** Counts a new pending question against its asker and the server. */
  function hold(e: Entry): void {
    const h = heldBy(e.spec.askedBy);
    held.set(e.spec.askedBy, { pending: h.pending + 1, mediaBytes: h.mediaBytes + e.mediaBytes });
    totals.mediaBytes += e.mediaBytes;
  }

  /** Gives back what hold() counted, once, when the question leaves PENDING (or vanishes). */
  function release(e: Entry): void {
    const h = heldBy(e.spec.askedBy);
    if (h.pending <= 1) held.delete(e.spec.askedBy);
    else held.set(e.spec.askedBy, { pending: h.pending - 1, mediaBytes: h.mediaBytes - e.mediaBytes });
    totals.mediaBytes -= e.mediaBytes;
  }

  function alive<T>(map: Map<string, Expiring<T>>, key: string): T | undefined {
    const e = map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= clock()) {
      map.delete(key);
      return undefined;
    }
    return e.value;
  }

  function entry(id: string): Entry | undefined {
    const e = entries.get(id);
    if (e && e.expiresAt <= clock()) {
      entries.delete(id);
      if (pendingIds.delete(id)) release(e);
      return undefined;
    }
    return e;
  }

  function announce(ev: StoreEvent): void {
    queueMicrotask(() => {
      for (const l of listeners) l.event(ev);
    });
  }

  /**
   * The one place a question leaves PENDING: status, TTLs, follow-ups, announcement, audit entry
   * (as resolve() in common.lua: the format added, a decision kept for APPROVAL and CONFIRM only).
   */
  function resolve(
    id: string,
    e: Entry,
    r: Resolution,
    retentionMs: number,
    now: number,
    auditOf?: { actor: string | null; detail: AuditDetail; type?: AuditEntryType },
  ): QuestionRecord {
    e.resolution = r;
    e.expiresAt = now + retentionMs;
    if (pendingIds.delete(id)) release(e);
    // Its ladder stops here: no step fires after the question left PENDING.
    for (let i = 0; i < (e.spec.escalation?.length ?? 0); i++) escalations.delete(`${id}#${i}`);
    const t = e.ticketHash ? tickets.get(e.ticketHash) : undefined;
    if (t) t.expiresAt = now + retentionMs;
    const k = e.idemKey ? idem.get(e.idemKey) : undefined;
    if (k) k.expiresAt = now + retentionMs;
    outbox.enqueue(id, e.followUps, now);
    const q = record(e);
    announce(eventOf(r.status, q));
    const actor = auditOf?.actor ?? null;
    const detail: AuditDetail = { ...(auditOf?.detail ?? {}) };
    const format: string = e.spec.format;
    if (format !== 'APPROVAL' && format !== 'CONFIRM') delete detail.decision;
    detail.format = e.spec.format;
    audit.append(auditOf?.type ?? r.status, id, actor, auditViaOf(actor, e.spec.channel), detail, now);
    return q;
  }

  /** Every live entry matching the filter, oldest first. */
  function sorted(filter: ListFilter): Sorted[] {
    const ids = onlyPending(filter) ? [...pendingIds] : [...entries.keys()];
    const out: Sorted[] = [];
    for (const id of ids) {
      const e = entry(id);
      if (e && matchesFilter(record(e), filter)) out.push({ cursor: { createdAt: e.spec.createdAt, id }, e });
    }
    return out.sort((a, b) => compareOldestFirst(a.cursor, b.cursor));
  }

  function prune(): void {
    for (const id of [...entries.keys()]) entry(id);
    for (const map of [tickets, reservations, idem, replies, seen] as Map<string, Expiring<unknown>>[]) {
      for (const key of [...map.keys()]) alive(map, key);
    }
    for (const owner of [...reservedBy.keys()]) reservedCount(owner);
  }

  return {
    clock,
    entries,
    pendingIds,
    tickets,
    reservations,
    idem,
    replies,
    seen,
    listeners,
    escalations,
    outbox,
    audit,
    totals,
    heldBy,
    hold,
    reservedCount,
    addReservation,
    consumeReservation,
    alive,
    entry,
    announce,
    resolve,
    sorted,
    prune,
  };
}
