// What the engine keeps of a channel's delivery receipt: a plain JSON object small enough for
// the store. A plugin is third-party code, so anything else is reduced to its indexed keys.
import { isPlainObject } from '../../domain/values.ts';
import { MAX_RECEIPT_BYTES, receiptKeys, type StoredReceipt } from '../../store/receipts.ts';

export function receiptToStore(value: unknown): { receipt: StoredReceipt; trimmed: boolean } {
  if (value === undefined || value === null) return { receipt: {}, trimmed: false };
  if (isPlainObject(value)) {
    try {
      const text = JSON.stringify(value);
      if (Buffer.byteLength(text) <= MAX_RECEIPT_BYTES) {
        return { receipt: JSON.parse(text) as StoredReceipt, trimmed: false };
      }
    } catch {
      // Not JSON (a cycle, a BigInt): kept as its keys below.
    }
  }
  const { ref, recipient } = receiptKeys(isPlainObject(value) ? (value as StoredReceipt) : null);
  return {
    receipt: { ...(ref !== null ? { ref } : {}), ...(recipient !== null ? { recipient } : {}) },
    trimmed: true,
  };
}
