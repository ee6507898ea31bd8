// The outbox for one process (rules and the worker's protocol: outbox.ts). Like the memory
// store, each call runs to completion synchronously, which makes leasing atomic.
import { randomUUID } from 'node:crypto';
import { checkDueAt, checkLease, OUTBOX_ITEM_TTL_MS, outboxItemId } from './outbox.ts';
import type { Outbox, OutboxItem } from './types.ts';

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
  enqueue(questionId: string, targets: readonly string[], now: number): void;
}

export function createMemoryOutbox(clock: () => number): MemoryOutbox {
  const slots = new Map<string, Slot>();

  function live(id: string): Slot | undefined {
    const s = slots.get(id);
    if (s && s.expiresAt <= clock()) {
      slots.delete(id);
      return undefined;
    }
    return s;
  }

  function settle(itemId: string, leaseToken: string, dueAt: number | null): boolean {
    const s = live(itemId);
    if (!s || s.leaseToken !== leaseToken) return false;
    if (dueAt === null) {
      slots.delete(itemId);
    } else {
      s.item = { ...s.item, attempt: s.item.attempt + 1, dueAt };
      s.score = dueAt;
      s.leaseToken = null;
    }
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

  return {
    enqueue(questionId, targets, now) {
      for (const target of targets) {
        const id = outboxItemId(questionId, target);
        if (live(id)) continue;
        slots.set(id, {
          item: { id, questionId, target, attempt: 0, dueAt: now, enqueuedAt: now },
          score: now,
          leaseToken: null,
          expiresAt: clock() + OUTBOX_ITEM_TTL_MS,
        });
      }
    },
    outbox: {
      async leaseDue(now, max, leaseMs, owner) {
        checkLease(max, leaseMs, owner);
        return lease(now, max, leaseMs);
      },
      ack: async (itemId, leaseToken) => settle(itemId, leaseToken, null),
      async retry(itemId, leaseToken, dueAt) {
        checkDueAt(dueAt);
        return settle(itemId, leaseToken, dueAt);
      },
      drop: async (itemId, leaseToken) => settle(itemId, leaseToken, null),
    },
  };
}
