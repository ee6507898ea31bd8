// What the engine keeps of a channel's delivery record: a plain JSON object small enough for
// the store. A plugin is third-party code, so anything else is reduced to its indexed keys.
import { isPlainObject } from '../../domain/values.ts';
import { deliveryKeys, MAX_DELIVERY_BYTES, type StoredDelivery } from '../../store/deliveries.ts';

export function deliveryToStore(value: unknown): { delivery: StoredDelivery; trimmed: boolean } {
  if (value === undefined || value === null) return { delivery: {}, trimmed: false };
  if (isPlainObject(value)) {
    try {
      const text = JSON.stringify(value);
      if (Buffer.byteLength(text) <= MAX_DELIVERY_BYTES) {
        return { delivery: JSON.parse(text) as StoredDelivery, trimmed: false };
      }
    } catch {
      // Not JSON (a cycle, a BigInt): kept as its keys below.
    }
  }
  const { ref, recipient } = deliveryKeys(isPlainObject(value) ? (value as StoredDelivery) : null);
  return {
    delivery: { ...(ref !== null ? { ref } : {}), ...(recipient !== null ? { recipient } : {}) },
    trimmed: true,
  };
}
