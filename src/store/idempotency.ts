import { createHash } from 'node:crypto';

/** Where an asker's idempotency key is kept: hashed, so any id or key is a safe key part. */
export function idempotencySlot(askedBy: string, key: string): string {
  return createHash('sha256').update(askedBy).update('\n').update(key).digest('hex');
}
