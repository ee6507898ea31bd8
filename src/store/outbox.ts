// The outbox: follow-up work after a question resolves (editing a channel message, calling a
// resume webhook), enqueued by the same atomic step that claims the question, so a resolution
// is never recorded without its follow-ups. Both stores implement it; this file holds the
// rules they share.
//
// How a worker uses it (the store never performs an item):
//   1. At ask time the engine passes `followUps` in CreateOptions: opaque target strings it
//      computes, e.g. `channel:ops-slack` or `webhook:runs` (at most MAX_FOLLOW_UPS, each at
//      most MAX_TARGET_CHARS printable characters, no duplicates).
//   2. Whichever claim resolves the question (answer, cancel, late claim, reaper timeout)
//      enqueues one item per target: id `<questionId>:<target>` (stable, so receivers can
//      deduplicate), attempt 0, due at the claim's `now`. A question resolves once, so
//      an item is enqueued once.
//   3. Any instance calls `store.outbox.leaseDue(now, max, leaseMs, owner)`: due items,
//      oldest first, each leased to that call alone until `now + leaseMs` (another instance
//      does not see it meanwhile) and carrying a fresh `leaseToken`.
//   4. The worker performs the item, then with the lease token:
//        ack(id, token)          done: the item is gone;
//        retry(id, token, dueAt) failed for now: attempt + 1, due again at dueAt;
//        defer(id, token, dueAt) not now (its target is busy or backing off): due again at
//                                dueAt, the attempt NOT counted (nothing was tried);
//        drop(id, token, note)   give up (e.g. a 410): the item is gone and a dead letter
//                                (id, target, attempts, the reason) is kept for operators.
//      Each returns false when the lease is no longer this worker's (it expired and another
//      instance leased the item): the worker then does nothing more with it.
//   5. A worker that dies between lease and ack leaves the item to become due again when the
//      lease expires; the next lease counts it as an attempt (attempt + 1). A retry, never
//      a loss: delivery is at least once.
//   6. A dead letter lives for the note's retentionMs and at most MAX_DEAD_LETTERS are kept
//      (the oldest go first): `deadLetters(now, first)` lists them newest first, `stats(now)`
//      counts the items and the dead letters.
//   Items expire OUTBOX_ITEM_TTL_MS after they were enqueued, whatever their state, so
//   nothing stays forever; the worker decides when to stop retrying before that.
//
// A target is the receiving end of an item (the channel or the webhook endpoint): the worker
// caps deliveries in flight per target and backs a failing target off (deliveryTargetOf).

/** Most follow-up targets one question may carry. */
export const MAX_FOLLOW_UPS = 16;
/** Longest target string. */
export const MAX_TARGET_CHARS = 200;
/** How long an outbox item lives after it was enqueued (the webhook retry window is 24 h). */
export const OUTBOX_ITEM_TTL_MS = 48 * 3600_000;
/** Most targets one `add` call may enqueue. */
export const MAX_ADD_BATCH = 1000;
/** Most items one leaseDue call may take. */
export const MAX_LEASE_BATCH = 1000;
/** Longest lease. */
export const MAX_LEASE_MS = 3600_000;

/** Most dead letters kept (the oldest are trimmed first). */
export const MAX_DEAD_LETTERS = 10_000;
/** How long a dead letter is kept when the drop names no retention. */
export const DEAD_LETTER_RETENTION_MS = 7 * 24 * 3600_000;
/** Longest reason kept with a dead letter (handlers' reasons are short; the rest is cut). */
export const MAX_DEAD_REASON_CHARS = 300;
/** Most dead letters one listing returns. */
export const MAX_DEAD_LETTER_PAGE = 1000;

const TARGET = /^[\x21-\x7e]+$/;

/**
 * The receiving end an item is delivered to: the whole target string (`webhook:runs` is the
 * endpoint `runs`, `channel:ops-slack` the channel `ops-slack`), except a push to one device,
 * `push:<device>@<push service origin>`, which is delivered to `push:<origin>`: all of one push
 * service's devices share its slots, so a hung service holds only its own (API.md §19). The one
 * definition the worker's per-target cap and backoff use.
 */
export function deliveryTargetOf(item: { target: string }): string {
  const t = item.target;
  if (!t.startsWith('push:')) return t;
  const at = t.lastIndexOf('@');
  return at < 0 ? t : `push:${t.slice(at + 1)}`;
}

/** Checks what `add` is given (targets as follow-ups are, at most MAX_ADD_BATCH of them). */
export function checkAdd(questionId: string, targets: readonly string[], now: number): void {
  checkDueAt(now);
  if (typeof questionId !== 'string' || questionId.length === 0 || questionId.length > MAX_TARGET_CHARS) {
    throw new RangeError(`questionId is 1-${MAX_TARGET_CHARS} characters`);
  }
  if (!Array.isArray(targets) || targets.length > MAX_ADD_BATCH) {
    throw new RangeError(`at most ${MAX_ADD_BATCH} targets a call`);
  }
  for (const t of targets) {
    if (typeof t !== 'string' || t.length > MAX_TARGET_CHARS || !TARGET.test(t)) {
      throw new RangeError(`a target is 1-${MAX_TARGET_CHARS} printable ASCII characters, no spaces`);
    }
  }
}

/** The reason as kept with a dead letter: one line, printable, at most MAX_DEAD_REASON_CHARS. */
export function deadReasonOf(reason: string): string {
  const line = reason.replace(/\p{Cc}+/gu, ' ').trim() || 'dropped';
  return line.length > MAX_DEAD_REASON_CHARS ? `${line.slice(0, MAX_DEAD_REASON_CHARS - 1)}…` : line;
}

export function checkDeadNote(note: { reason: string; now: number; retentionMs: number }): void {
  checkDueAt(note.now);
  if (!Number.isSafeInteger(note.retentionMs) || note.retentionMs < 1) {
    throw new RangeError('retentionMs is a whole number of milliseconds, at least 1');
  }
  if (typeof note.reason !== 'string') throw new RangeError('reason is a string');
}

export function checkDeadPage(first: number): void {
  if (!Number.isInteger(first) || first < 1 || first > MAX_DEAD_LETTER_PAGE) {
    throw new RangeError(`first is an integer from 1 to ${MAX_DEAD_LETTER_PAGE}`);
  }
}

export function outboxItemId(questionId: string, target: string): string {
  return `${questionId}:${target}`;
}

/** Targets are computed by the engine; a bad one is a programming error, refused before any write. */
export function checkFollowUps(targets: readonly string[] | null | undefined): readonly string[] {
  if (!targets) return [];
  if (targets.length > MAX_FOLLOW_UPS) throw new RangeError(`at most ${MAX_FOLLOW_UPS} follow-up targets`);
  for (const t of targets) {
    if (typeof t !== 'string' || t.length > MAX_TARGET_CHARS || !TARGET.test(t)) {
      throw new RangeError(
        `a follow-up target is 1-${MAX_TARGET_CHARS} printable ASCII characters, no spaces`,
      );
    }
  }
  if (new Set(targets).size !== targets.length) throw new RangeError('follow-up targets must be distinct');
  return targets;
}

export function checkLease(max: number, leaseMs: number, owner: string): void {
  if (!Number.isInteger(max) || max < 1 || max > MAX_LEASE_BATCH) {
    throw new RangeError(`max is an integer from 1 to ${MAX_LEASE_BATCH}`);
  }
  if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw new RangeError(`leaseMs is an integer from 1 to ${MAX_LEASE_MS}`);
  }
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > MAX_TARGET_CHARS) {
    throw new RangeError(`owner is 1-${MAX_TARGET_CHARS} characters`);
  }
}

export function checkDueAt(dueAt: number): void {
  if (!Number.isSafeInteger(dueAt) || dueAt < 0) throw new RangeError('dueAt is epoch milliseconds');
}
