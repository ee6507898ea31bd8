import { describe, expect, it } from 'vitest';
import { idempotencySlot } from '../../src/store/idempotency.ts';

describe('idempotencySlot', () => {
  it('is stable for the same asker and key', () => {
    expect(idempotencySlot('agent', 'k1')).toBe(idempotencySlot('agent', 'k1'));
    expect(idempotencySlot('agent', 'k1')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('separates pairs that a joined string would merge', () => {
    // With askedBy + "\n" + key both of these were the string "a\nb\nc".
    expect(idempotencySlot('a\nb', 'c')).not.toBe(idempotencySlot('a', 'b\nc'));
    expect(idempotencySlot('ab', '')).not.toBe(idempotencySlot('a', 'b'));
    expect(idempotencySlot('', 'ab')).not.toBe(idempotencySlot('a', 'b'));
  });

  it('keeps lone surrogates apart (UTF-8 would turn both into U+FFFD)', () => {
    expect(idempotencySlot('agent', 'k\uD800')).not.toBe(idempotencySlot('agent', 'k\uDC00'));
  });
});
