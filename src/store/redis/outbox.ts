// The outbox on Redis (rules and the worker's protocol: ../outbox.ts). Leasing and settling
// are one script each, so two instances never hold the same item at once.
import { randomUUID } from 'node:crypto';
import { checkDueAt, checkLease } from '../outbox.ts';
import type { Outbox, OutboxItem } from '../types.ts';
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

export function createRedisOutbox(run: ScriptRunner): Outbox {
  const settle = async (itemId: string, leaseToken: string, dueAt: number | ''): Promise<boolean> =>
    Number(await run('outboxSettle', [itemId, leaseToken, dueAt])) === 1;

  return {
    async leaseDue(now, max, leaseMs, owner) {
      checkLease(max, leaseMs, owner);
      const reply = (await run('outboxLease', [now, max, leaseMs, owner, randomUUID()])) as Reply[][];
      return reply.map(itemOf);
    },
    ack: (itemId, leaseToken) => settle(itemId, leaseToken, ''),
    async retry(itemId, leaseToken, dueAt) {
      checkDueAt(dueAt);
      return settle(itemId, leaseToken, dueAt);
    },
    drop: (itemId, leaseToken) => settle(itemId, leaseToken, ''),
  };
}
