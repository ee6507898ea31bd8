// Display names (API.md §19): cleaned once where they enter. Control and format characters
// removed, whitespace folded to one space, at most 100 code points, and an empty result falls
// back to the identity.
import { describe, expect, it } from 'vitest';
import { cleanName, DISPLAY_NAME_MAX_CHARS, displayName } from '../../src/domain/display-name.ts';

describe('cleanName', () => {
  it('removes control and format characters and lone surrogates, folds whitespace to one space', () => {
    expect(cleanName('\u0007Ada\r\n\t Love\u200Blace\u202E \u2028 \uD800(ops)\u0000 ')).toBe(
      'Ada Lovelace (ops)',
    );
    expect(cleanName('a\u00A0\u3000b')).toBe('a b');
  });

  it('keeps markup as text (escaped by whatever renders it)', () => {
    expect(cleanName('<img src=x onerror=alert(1)> *bold* @here')).toBe(
      '<img src=x onerror=alert(1)> *bold* @here',
    );
  });

  it('keeps 100 code points and cuts the 101st; astral characters count once', () => {
    const at = '😀'.repeat(DISPLAY_NAME_MAX_CHARS);
    expect(cleanName(at)).toBe(at);
    expect(cleanName(`${at}x`)).toBe(at);
    expect([...cleanName('n'.repeat(5000))]).toHaveLength(100);
    // A cut that ends on a space leaves no trailing space.
    expect(cleanName(`${'a'.repeat(99)} b`)).toBe('a'.repeat(99));
  });

  it('is empty for nothing shown, or for what is not a string', () => {
    expect(cleanName('\u200B\u0000 \u202E\t')).toBe('');
    expect(cleanName(undefined)).toBe('');
    expect(cleanName(42)).toBe('');
  });

  it('cleaning twice changes nothing', () => {
    const once = cleanName(` x\u0085y \u200Dz ${'w'.repeat(200)}`);
    expect(cleanName(once)).toBe(once);
  });
});

describe('displayName', () => {
  it('takes the first candidate left with a name, else the identity', () => {
    expect(displayName('oidc:1', '\u200B', ' ada@example.com ')).toBe('ada@example.com');
    expect(displayName('oidc:1', 'Ada', 'ada@example.com')).toBe('Ada');
    expect(displayName('oidc:1', '\u0000', null)).toBe('oidc:1');
  });
});
