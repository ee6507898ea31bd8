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

/** The receipt fields of a question's hash, in the order `receiptFieldsOf` names them. */
export function receiptFieldsOf(place: string | undefined): string[] {
  return ['chan', 'rc', 'rd', `rc:${place ?? ''}`, `rd:${place ?? ''}`];
}

/** What `receiptFieldsOf(place)` read: the receipt of `place`, undefined while none is recorded. */
export function receiptFrom(
  [chan, rc, rd, prc, prd]: (string | null | undefined)[],
  place: string | undefined,
): { receipt: StoredReceipt | null; deliveredAt: number | null } | undefined {
  // Another place than the question's own channel: what its REROUTE delivery recorded.
  const other = place !== undefined && place !== chan;
  const text = other ? prc : rc;
  const at = other ? prd : rd;
  if (text === null || text === undefined) return undefined;
  return { receipt: JSON.parse(text) as StoredReceipt | null, deliveredAt: at ? Number(at) : null };
}

export function createRedisReceipts(redis: RedisClient, prefix: string, run: ScriptRunner): ChannelReceipts {
  return {
    async save(id, receipt, deliveredAt, place) {
      const { ref, recipient } = receiptKeys(receipt);
      const args = [
        id,
        encodeReceipt(receipt),
        ref ?? '',
        recipient ?? '',
        RECIPIENT_INDEX_DEPTH,
        deliveredAt ?? '',
        deliveredAt ?? Date.now(),
        place ?? '',
      ];
      return Number(await run('receiptSave', args)) === 1;
    },

    async get(id, place) {
      return receiptFrom(await redis.hmget(`${prefix}q:${id}`, ...receiptFieldsOf(place)), place);
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
