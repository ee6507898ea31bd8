// The outbox for one process (rules and the worker's protocol: outbox.ts). Like the memory
// store, each call runs to completion synchronously, which makes leasing atomic.
import { randomUUID } from 'node:crypto';
import {
  checkAdd,
  checkDeadNote,
  checkDeadPage,
  checkDueAt,
  checkLease,
  DEAD_LETTER_RETENTION_MS,
  deadReasonOf,
  MAX_DEAD_LETTERS,
  OUTBOX_ITEM_TTL_MS,
  outboxItemId,
} from './outbox.ts';
import type { DeadLetter, DeadNote, Outbox, OutboxItem } from './types.ts';

interface Slot {
  item: Omit<OutboxItem, 'leaseToken'>;
  /** When it is next due: dueAt, or the lease's end while leased. */
  score: number;
  leaseToken: string | null;
  expiresAt: number;
}

export interface MemoryOutbox {
  outbox: Outbox;
  /** Called by the claim that resolves a question, in the same synchronous step. */
  enqueue(questionId: string, targets: readonly string[], now: number): number;
  /** Items held now (the outbox cap counts them). */
  size(): number;
}

export function createMemoryOutbox(clock: () => number): MemoryOutbox {
  const slots = new Map<string, Slot>();
  // Dead letters in the order they were dropped (a Map keeps insertion order; a second drop of
  // the same id, after a re-enqueue, moves it to the end), each with its own expiry.
  const dead = new Map<string, { letter: DeadLetter; expiresAt: number }>();

  function liveDead(now: number): DeadLetter[] {
    for (const [id, d] of dead) if (d.expiresAt <= now) dead.delete(id);
    return [...dead.values()].map((d) => d.letter);
  }

  function live(id: string): Slot | undefined {
    const s = slots.get(id);
    if (s && s.expiresAt <= clock()) {
      slots.delete(id);
      return undefined;
    }
    return s;
  }

  /** dueAt null: the item is gone; counted: whether the attempt counts (retry) or not (defer). */
  function settle(itemId: string, leaseToken: string, dueAt: number | null, counted = true): boolean {
    const s = live(itemId);
    if (!s || s.leaseToken !== leaseToken) return false;
    if (dueAt === null) {
      slots.delete(itemId);
    } else {
      s.item = { ...s.item, attempt: s.item.attempt + (counted ? 1 : 0), dueAt };
      s.score = dueAt;
      s.leaseToken = null;
    }
    return true;
  }

  function bury(itemId: string, leaseToken: string, note: DeadNote): boolean {
    const s = live(itemId);
    if (!s || s.leaseToken !== leaseToken) return false;
    slots.delete(itemId);
    const { id, questionId, target, attempt, enqueuedAt } = s.item;
    dead.delete(id);
    dead.set(id, {
      letter: {
        id,
        questionId,
        target,
        attempts: attempt + 1,
        lastError: deadReasonOf(note.reason),
        enqueuedAt,
        droppedAt: note.now,
      },
      expiresAt: note.now + note.retentionMs,
    });
    while (dead.size > MAX_DEAD_LETTERS) dead.delete(dead.keys().next().value as string);
    return true;
  }

  function lease(now: number, max: number, leaseMs: number): OutboxItem[] {
    const due = [...slots.keys()]
      .map((id) => ({ id, s: live(id) }))
      .filter((x): x is { id: string; s: Slot } => !!x.s && x.s.score <= now)
      .sort((a, b) => a.s.score - b.s.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, max);
    return due.map(({ s }) => {
      // Still holding a token: the previous lease expired unsettled, so this is the next attempt.
      const attempt = s.leaseToken === null ? s.item.attempt : s.item.attempt + 1;
      s.item = { ...s.item, attempt, dueAt: s.score };
      s.leaseToken = randomUUID();
      s.score = now + leaseMs;
      return { ...s.item, leaseToken: s.leaseToken };
    });
  }

  function enqueue(questionId: string, targets: readonly string[], now: number): number {
    let added = 0;
    for (const target of targets) {
      const id = outboxItemId(questionId, target);
      if (live(id)) continue;
      slots.set(id, {
        item: { id, questionId, target, attempt: 0, dueAt: now, enqueuedAt: now },
        score: now,
        leaseToken: null,
        expiresAt: clock() + OUTBOX_ITEM_TTL_MS,
      });
      added++;
    }
    return added;
  }

  return {
    enqueue,
    size: () => slots.size,
    outbox: {
      async add(questionId, targets, now) {
        checkAdd(questionId, targets, now);
        return enqueue(questionId, targets, now);
      },
      async leaseDue(now, max, leaseMs, owner) {
        checkLease(max, leaseMs, owner);
        return lease(now, max, leaseMs);
      },
      ack: async (itemId, leaseToken) => settle(itemId, leaseToken, null),
      async retry(itemId, leaseToken, dueAt) {
        checkDueAt(dueAt);
        return settle(itemId, leaseToken, dueAt);
      },
      async defer(itemId, leaseToken, dueAt) {
        checkDueAt(dueAt);
        return settle(itemId, leaseToken, dueAt, false);
      },
      async drop(itemId, leaseToken, note) {
        const n = note ?? { reason: 'dropped', now: clock(), retentionMs: DEAD_LETTER_RETENTION_MS };
        checkDeadNote(n);
        return bury(itemId, leaseToken, n);
      },
      async deadLetters(now, first) {
        checkDueAt(now);
        checkDeadPage(first);
        return liveDead(now).reverse().slice(0, first);
      },
      async stats(now) {
        checkDueAt(now);
        for (const id of [...slots.keys()]) live(id);
        return { items: slots.size, deadLetters: liveDead(now).length };
      },
    },
  };
}
