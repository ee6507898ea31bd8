// Delivery deliveries on Redis (contract: ../deliveries.ts): the delivery is a field of the
// question's hash (`rd`: when it was delivered); `chref:<channel>:<ref>` and the sorted set
// `chto:<channel>:<recipient>` index it, each written by the same script and expiring with the
// question.

import {
  type ChannelDeliveries,
  deliveryKeys,
  encodeDelivery,
  RECIPIENT_INDEX_DEPTH,
  type StoredDelivery,
} from '../deliveries.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

/** The delivery fields of a question's hash, in the order `deliveryFieldsOf` names them. */
export function deliveryFieldsOf(place: string | undefined): string[] {
  return ['chan', 'rc', 'rd', `rc:${place ?? ''}`, `rd:${place ?? ''}`];
}

/** What `deliveryFieldsOf(place)` read: the delivery of `place`, undefined while none is recorded. */
export function deliveryFrom(
  [chan, rc, rd, prc, prd]: (string | null | undefined)[],
  place: string | undefined,
): { delivery: StoredDelivery | null; deliveredAt: number | null } | undefined {
  // Another place than the question's own channel: what its REROUTE delivery recorded.
  const other = place !== undefined && place !== chan;
  const text = other ? prc : rc;
  const at = other ? prd : rd;
  if (text === null || text === undefined) return undefined;
  return { delivery: JSON.parse(text) as StoredDelivery | null, deliveredAt: at ? Number(at) : null };
}

export function createRedisDeliveries(
  redis: RedisClient,
  prefix: string,
  run: ScriptRunner,
): ChannelDeliveries {
  return {
    async save(id, delivery, deliveredAt, place) {
      const { ref, recipient } = deliveryKeys(delivery);
      const args = [
        id,
        encodeDelivery(delivery),
        ref ?? '',
        recipient ?? '',
        RECIPIENT_INDEX_DEPTH,
        deliveredAt ?? '',
        deliveredAt ?? Date.now(),
        place ?? '',
      ];
      return Number(await run('deliverySave', args)) === 1;
    },

    async get(id, place) {
      return deliveryFrom(await redis.hmget(`${prefix}q:${id}`, ...deliveryFieldsOf(place)), place);
    },

    async byRef(channel, ref) {
      const id = await redis.get(`${prefix}chref:${channel}:${ref}`);
      if (id === null) return null;
      // The index may outlive a question resolved early (its TTL shortened to retention).
      return (await redis.exists(`${prefix}q:${id}`)) === 1 ? id : null;
    },

    async latestFor(channel, recipient, deliveredBy) {
      const found = (await run('deliveryLatest', [channel, recipient, deliveredBy ?? ''])) as
        | [string, number]
        | null;
      return found ? { id: found[0], pending: Number(found[1]) } : null;
    },
  };
}
