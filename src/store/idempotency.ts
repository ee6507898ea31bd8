import { createHash } from 'node:crypto';

// Each part is hashed as its exact UTF-16 code units behind a fixed-width length, so no two
// (asker, key) pairs share an input: a separator could appear inside either part, and UTF-8
// would fold every lone surrogate into the same replacement character.
function lengthPrefixed(part: string): Buffer {
  const bytes = Buffer.from(part, 'utf16le');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** Where an asker's idempotency key is kept: hashed, so any id or key is a safe key part. */
export function idempotencySlot(askedBy: string, key: string): string {
  return createHash('sha256').update(lengthPrefixed(askedBy)).update(lengthPrefixed(key)).digest('hex');
}
