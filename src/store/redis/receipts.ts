// Delivery receipts on Redis (contract: ../receipts.ts): the receipt is a field of the
// question's hash (`rd`: when it was delivered); `chref:<channel>:<ref>` and the sorted set
// `chto:<channel>:<recipient>` index it, each written by the same script and expiring with the
// question.

import {
  type ChannelReceipts,
  encodeReceipt,
  RECIPIENT_INDEX_DEPTH,
  receiptKeys,
  type StoredReceipt,
} from '../receipts.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

export function createRedisReceipts(redis: RedisClient, prefix: string, run: ScriptRunner): ChannelReceipts {
  return {
    async save(id, receipt, deliveredAt) {
      const { ref, recipient } = receiptKeys(receipt);
      const args = [
        id,
        encodeReceipt(receipt),
        ref ?? '',
        recipient ?? '',
        RECIPIENT_INDEX_DEPTH,
        deliveredAt ?? '',
        deliveredAt ?? Date.now(),
      ];
      return Number(await run('receiptSave', args)) === 1;
    },

    async get(id) {
      const [text, at] = await redis.hmget(`${prefix}q:${id}`, 'rc', 'rd');
      if (text === null || text === undefined) return undefined;
      return { receipt: JSON.parse(text) as StoredReceipt | null, deliveredAt: at ? Number(at) : null };
    },

    async byRef(channel, ref) {
      const id = await redis.get(`${prefix}chref:${channel}:${ref}`);
      if (id === null) return null;
      // The index may outlive a question resolved early (its TTL shortened to retention).
      return (await redis.exists(`${prefix}q:${id}`)) === 1 ? id : null;
    },

    async latestFor(channel, recipient, deliveredBy) {
      const found = (await run('receiptLatest', [channel, recipient, deliveredBy ?? ''])) as
        | [string, number]
        | null;
      return found ? { id: found[0], pending: Number(found[1]) } : null;
    },
  };
}
