// Delivery deliveries in the memory store (contract: deliveries.ts). Entries live exactly as long as
// their question: every read goes through the question's own liveness check.

import {
  type ChannelDeliveries,
  deliveryKeys,
  encodeDelivery,
  RECIPIENT_INDEX_DEPTH,
  type StoredDelivery,
} from './deliveries.ts';
import type { MemoryTables } from './memory-tables.ts';

const indexKey = (channel: string, key: string): string => `${channel}\n${key}`;
/** Where a delivery is kept: the question's own channel under its id, another place beside it. */
const slotOf = (id: string, place: string | null): string => (place === null ? id : `${id}\n${place}`);

export function createMemoryDeliveries(t: MemoryTables): ChannelDeliveries {
  const deliveries = new Map<string, string>();
  const delivered = new Map<string, number>();
  const refs = new Map<string, string>();
  const recipients = new Map<string, string[]>();

  /** The id if its question still lives (dropping what belonged to a question that is gone). */
  function live(id: string | undefined): string | null {
    if (id === undefined) return null;
    if (t.entry(id)) return id;
    for (const k of [...deliveries.keys()]) {
      if (k === id || k.startsWith(`${id}\n`)) {
        deliveries.delete(k);
        delivered.delete(k);
      }
    }
    return null;
  }

  return {
    async save(id, delivery, deliveredAt, place) {
      const e = t.entry(id);
      const own = place === undefined || place === e?.spec.channel;
      const channel = own ? e?.spec.channel : place;
      if (!e || !channel) return false;
      const slot = slotOf(id, own ? null : channel);
      deliveries.set(slot, encodeDelivery(delivery));
      // Its audit entry in the same step, as delivery-save.lua writes it.
      t.audit.append(
        delivery === null ? 'DELIVERY_FAILED' : 'DELIVERED',
        id,
        null,
        `channel:${channel}`,
        { channel },
        t.clock(),
      );
      if (deliveredAt !== undefined) delivered.set(slot, deliveredAt);
      const { ref, recipient } = deliveryKeys(delivery);
      if (ref !== null) refs.set(indexKey(channel, ref), id);
      if (recipient !== null) {
        const k = indexKey(channel, recipient);
        const ids = [id, ...(recipients.get(k) ?? []).filter((x) => x !== id && t.entry(x))];
        recipients.set(k, ids.slice(0, RECIPIENT_INDEX_DEPTH));
      }
      return true;
    },

    async get(id, place) {
      if (!live(id)) return undefined;
      const slot = slotOf(id, place === undefined || place === t.entry(id)?.spec.channel ? null : place);
      const text = deliveries.get(slot);
      if (text === undefined) return undefined;
      return {
        delivery: JSON.parse(text) as StoredDelivery | null,
        deliveredAt: delivered.get(slot) ?? null,
      };
    },

    async byRef(channel, ref) {
      const k = indexKey(channel, ref);
      const id = live(refs.get(k));
      if (id === null) refs.delete(k);
      return id;
    },

    async latestFor(channel, recipient, deliveredBy) {
      const ids = recipients.get(indexKey(channel, recipient)) ?? [];
      const slot = (id: string) => slotOf(id, t.entry(id)?.spec.channel === channel ? null : channel);
      const sentInTime = (id: string) =>
        deliveredBy === undefined || (delivered.get(slot(id)) ?? 0) <= deliveredBy;
      // Saved newest first; a later ask delivered earlier still counts by when it was asked.
      const pending = ids
        .filter(sentInTime)
        .map((id) => t.entry(id))
        .filter((e) => e !== undefined && e.resolution === null)
        .sort((a, b) => b!.spec.createdAt - a!.spec.createdAt);
      const newest = pending[0];
      return newest ? { id: newest.spec.id, pending: pending.length } : null;
    },
  };
}
