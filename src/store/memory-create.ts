// The memory store's create step (memory-store.ts): the idempotency key, the reservation, the
// caps in the order the Redis create script checks them, then the question, its indexes, its
// first follow-ups, its announcement and its audit entry, all in one synchronous run.
import { askedAuditDetail } from '../domain/audit.ts';
import type { QuestionSpec } from '../domain/question.ts';
import { mediaBytesOf, type QuotaLimit } from '../domain/quotas.ts';
import { idempotencySlot } from './idempotency.ts';
import { type Entry, type MemoryTables, record } from './memory-tables.ts';
import { checkFollowUps } from './outbox.ts';
import type { CreateOptions, CreateResult } from './types.ts';
import { eventOf } from './types.ts';

/** The first cap a new question would pass, in the order the Redis create script checks them. */
function overLimit(
  t: MemoryTables,
  askedBy: string,
  mediaBytes: number,
  o: CreateOptions,
  followUps: readonly string[],
): QuotaLimit | null {
  const mine = t.heldBy(askedBy);
  if (t.pendingIds.size + 1 > o.maxPending) return 'pending';
  // Live reservations count too; the one consumed here becomes this question.
  const reserved = t.reservedCount(askedBy) - (o.preparedId ? 1 : 0);
  if (o.maxPendingPerPrincipal !== undefined && mine.pending + reserved + 1 > o.maxPendingPerPrincipal) {
    return 'pendingPerPrincipal';
  }
  if (
    o.maxMediaBytesPerPrincipal !== undefined &&
    mine.mediaBytes + mediaBytes > o.maxMediaBytesPerPrincipal
  ) {
    return 'mediaBytesPerPrincipal';
  }
  if (o.maxMediaBytes !== undefined && t.totals.mediaBytes + mediaBytes > o.maxMediaBytes)
    return 'mediaBytes';
  // At the cap a question that would add follow-ups waits; its resolution would enqueue anyway.
  if (followUps.length > 0 && o.maxOutbox !== undefined && t.outbox.size() >= o.maxOutbox) return 'outbox';
  return null;
}

export function createQuestion(t: MemoryTables, spec: QuestionSpec, o: CreateOptions): CreateResult {
  const now = t.clock();
  const followUps = checkFollowUps(o.followUps);
  const idemKey = spec.idempotencyKey ? idempotencySlot(spec.askedBy, spec.idempotencyKey) : null;
  if (idemKey) {
    const existing = t.alive(t.idem, idemKey);
    const e = existing ? t.entry(existing) : undefined;
    // joinWhilePending: a decided or closed question is left alone; the key moves to the new one.
    if (e && !(o.joinWhilePending && e.resolution !== null)) return { kind: 'existing', question: record(e) };
  }
  let ticketHash = o.ticketHash ?? null;
  if (o.preparedId) {
    ticketHash = t.alive(t.reservations, o.preparedId) ?? null;
    if (!ticketHash) return { kind: 'no-reservation' };
  }
  const mediaBytes = mediaBytesOf(spec.media);
  const limit = overLimit(t, spec.askedBy, mediaBytes, o, followUps);
  if (limit) return { kind: 'limit', limit };
  if (o.preparedId) t.consumeReservation(spec.askedBy, o.preparedId);
  const expiresAt = Math.max(spec.timeoutAt, now) + o.retentionMs;
  const e: Entry = {
    spec,
    resolution: null,
    expiresAt,
    ticketHash,
    idemKey,
    followUps,
    mediaBytes,
    fired: new Map(),
  };
  for (const [i, due] of (o.escalationDue ?? []).entries()) t.escalations.set(`${spec.id}#${i}`, due);
  t.entries.set(spec.id, e);
  t.pendingIds.add(spec.id);
  t.hold(e);
  if (ticketHash) t.tickets.set(ticketHash, { value: spec.id, expiresAt });
  if (idemKey) t.idem.set(idemKey, { value: spec.id, expiresAt });
  // Follow-ups due at once (pushes of the new question), unless the outbox is at its cap.
  const atOnce = checkFollowUps(o.askFollowUps);
  if (atOnce.length > 0 && (o.maxOutbox === undefined || t.outbox.size() < o.maxOutbox)) {
    t.outbox.enqueue(spec.id, atOnce, now);
  }
  const q = record(e);
  t.announce(eventOf('ASKED', q));
  t.audit.append('ASKED', spec.id, spec.askedBy, 'api', askedAuditDetail(spec), spec.createdAt);
  return { kind: 'created', question: q };
}
