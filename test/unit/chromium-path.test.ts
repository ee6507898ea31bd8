// Which browser the inbox's end-to-end tests (test/e2e/) drive, and the hint when there is none.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumPath, DEFAULT_CHROMIUM_PATH } from '../support/chromium.ts';

describe('chromiumPath', () => {
  it('uses CHROMIUM_PATH when it names an existing file', () => {
    const here = path.resolve(import.meta.filename);
    expect(chromiumPath({ CHROMIUM_PATH: here })).toBe(here);
  });

  it('fails with an install hint when CHROMIUM_PATH names nothing', () => {
    expect(() => chromiumPath({ CHROMIUM_PATH: '/nonexistent/chromium' })).toThrow(
      /no Chromium at \/nonexistent\/chromium: .*install it .*apt-get install chromium.*CHROMIUM_PATH/,
    );
  });

  it("falls back to Debian's path when CHROMIUM_PATH is unset or blank", () => {
    for (const env of [{}, { CHROMIUM_PATH: '  ' }]) {
      let chosen: string;
      try {
        chosen = chromiumPath(env);
      } catch (err) {
        chosen = String(err);
      }
      expect(chosen).toContain(DEFAULT_CHROMIUM_PATH);
    }
  });
});
