// The one text-shortening helper the domain's messages and the CLI's columns share.
import { describe, expect, it } from 'vitest';
import { oneLine } from '../../src/cli/format.ts';
import { clip, fitWidth } from '../../src/domain/values.ts';

describe('clip', () => {
  it('keeps a string of exactly max code points and cuts one past it', () => {
    expect(clip('abcde', 5)).toBe('abcde');
    expect(clip('abcdef', 5)).toBe('abcde…');
  });

  it('counts astral code points as one each, at the limit and one past it', () => {
    const smile = '\u{1F600}';
    expect(clip(smile.repeat(5), 5)).toBe(smile.repeat(5));
    expect(clip(smile.repeat(6), 5)).toBe(`${smile.repeat(5)}…`);
  });

  it('reads only the head of a huge string', () => {
    expect(clip('x'.repeat(10_000_000), 3)).toBe('xxx…');
  });
});

describe('fitWidth and the CLI’s oneLine', () => {
  it('fit the ellipsis inside the width: exactly width is kept, one past is cut to width', () => {
    expect(fitWidth('abcde', 5)).toBe('abcde');
    expect(fitWidth('abcdef', 5)).toBe('abcd…');
    expect([...fitWidth('\u{1F600}'.repeat(6), 5)]).toHaveLength(5);
  });

  it('oneLine folds whitespace before fitting', () => {
    expect(oneLine('a\n  b\tc', 5)).toBe('a b c');
    expect(oneLine('a\n  b\tcd', 5)).toBe('a b …');
  });
});
