// Delivery receipts on Redis (contract: ../receipts.ts): the receipt is a field of the
// question's hash; `chref:<channel>:<ref>` and the sorted set `chto:<channel>:<recipient>` index
// it, each written by the same script and expiring with the question.

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
    async save(id, receipt) {
      const { ref, recipient } = receiptKeys(receipt);
      const args = [id, encodeReceipt(receipt), ref ?? '', recipient ?? '', RECIPIENT_INDEX_DEPTH];
      return Number(await run('receiptSave', args)) === 1;
    },

    async get(id) {
      const text = await redis.hget(`${prefix}q:${id}`, 'rc');
      return text === null ? undefined : { receipt: JSON.parse(text) as StoredReceipt | null };
    },

    async byRef(channel, ref) {
      const id = await redis.get(`${prefix}chref:${channel}:${ref}`);
      if (id === null) return null;
      // The index may outlive a question resolved early (its TTL shortened to retention).
      return (await redis.exists(`${prefix}q:${id}`)) === 1 ? id : null;
    },

    async latestFor(channel, recipient) {
      const found = (await run('receiptLatest', [channel, recipient])) as [string, number] | null;
      return found ? { id: found[0], pending: Number(found[1]) } : null;
    },
  };
}
