// Mailgun's timestamp window at its edge (API.md §9.1: within 300 s, either way), in milliseconds.
import { describe, expect, it } from 'vitest';
import { MAILGUN_WINDOW_MS, mailgunFresh } from '../../src/channels/email/inbound-auth.ts';

describe('mailgunFresh', () => {
  const now = 1_800_000_000_000;
  it('takes a timestamp up to 300 s away either way, and refuses one second past', () => {
    expect(MAILGUN_WINDOW_MS).toBe(300_000);
    expect(mailgunFresh(String(now / 1000 - 300), now)).toBe(true);
    expect(mailgunFresh(String(now / 1000 + 300), now)).toBe(true);
    expect(mailgunFresh(String(now / 1000 - 301), now)).toBe(false);
    expect(mailgunFresh(String(now / 1000 + 301), now)).toBe(false);
  });
  it('refuses what is not a number of seconds', () => {
    for (const bad of ['', '-1', '1.5', 'x', '1e9', '1234567890123'])
      expect(mailgunFresh(bad, now)).toBe(false);
  });
});
