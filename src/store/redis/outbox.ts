// The outbox on Redis (rules and the worker's protocol: ../outbox.ts). Leasing, settling and
// reading the dead letters are one script each, so two instances never hold the same item at
// once and a drop never loses its dead letter.
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
} from '../outbox.ts';
import type { DeadLetter, Outbox, OutboxItem } from '../types.ts';
import type { Reply, ScriptRunner } from './scripts.ts';

function itemOf(r: Reply[]): OutboxItem {
  return {
    id: r[0] as string,
    questionId: r[1] as string,
    target: r[2] as string,
    attempt: Number(r[3]),
    dueAt: Number(r[4]),
    enqueuedAt: Number(r[5]),
    leaseToken: r[6] as string,
  };
}

/** A dead letter as outbox-settle.lua wrote it (a JSON array); null for an unreadable one. */
function letterOf(json: Reply): DeadLetter | null {
  if (typeof json !== 'string') return null;
  const [id, questionId, target, attempts, reason, enqueuedAt, droppedAt] = JSON.parse(json) as unknown[];
  return {
    id: String(id),
    questionId: String(questionId),
    target: String(target),
    attempts: Number(attempts),
    lastError: String(reason),
    enqueuedAt: Number(enqueuedAt),
    droppedAt: Number(droppedAt),
  };
}

type How = 'ack' | 'retry' | 'defer' | 'drop';

export function createRedisOutbox(run: ScriptRunner): Outbox {
  const settle = async (
    itemId: string,
    leaseToken: string,
    how: How,
    dueAt: number | '' = '',
    dead: (string | number)[] = [],
  ): Promise<boolean> => Number(await run('outboxSettle', [itemId, leaseToken, how, dueAt, ...dead])) === 1;

  async function read(now: number, first: number): Promise<Reply[]> {
    checkDueAt(now);
    return (await run('outboxDead', [now, first])) as Reply[];
  }

  return {
    async add(questionId, targets, now) {
      checkAdd(questionId, targets, now);
      if (targets.length === 0) return 0;
      return Number(await run('outboxAdd', [questionId, now, OUTBOX_ITEM_TTL_MS, ...targets]));
    },
    async leaseDue(now, max, leaseMs, owner) {
      checkLease(max, leaseMs, owner);
      const reply = (await run('outboxLease', [now, max, leaseMs, owner, randomUUID()])) as Reply[][];
      return reply.map(itemOf);
    },
    ack: (itemId, leaseToken) => settle(itemId, leaseToken, 'ack'),
    async retry(itemId, leaseToken, dueAt) {
      checkDueAt(dueAt);
      return settle(itemId, leaseToken, 'retry', dueAt);
    },
    async defer(itemId, leaseToken, dueAt) {
      checkDueAt(dueAt);
      return settle(itemId, leaseToken, 'defer', dueAt);
    },
    async drop(itemId, leaseToken, note) {
      const n = note ?? { reason: 'dropped', now: Date.now(), retentionMs: DEAD_LETTER_RETENTION_MS };
      checkDeadNote(n);
      return settle(itemId, leaseToken, 'drop', '', [
        deadReasonOf(n.reason),
        n.now,
        n.retentionMs,
        MAX_DEAD_LETTERS,
      ]);
    },
    async deadLetters(now, first) {
      checkDeadPage(first);
      const letters = (await read(now, first))[2] as Reply[];
      return letters.map(letterOf).filter((l): l is DeadLetter => l !== null);
    },
    async stats(now) {
      const [items, deadLetters] = await read(now, 0);
      return { items: Number(items), deadLetters: Number(deadLetters) };
    },
  };
}
