// The callback doors' rate-limit key must be exactly the key @fastify/rate-limit would make.
import { normalizeIP } from '@fastify/rate-limit';
import { describe, expect, it } from 'vitest';
import { rateLimitKey } from '../../src/http/rate-limit-store.ts';

describe('rateLimitKey', () => {
  it("equals the plugin's key for IPv4, IPv6 (by /64) and IPv4-mapped addresses", () => {
    const addresses = [
      '127.0.0.1',
      '203.0.113.7',
      '::1',
      '2001:db8:85a3::8a2e:370:7334',
      '2001:DB8:85A3:0:1:2:3:4',
      '2001:db8:85a3:0:ffff:ffff:ffff:ffff',
      '::ffff:192.0.2.128',
    ];
    for (const ip of addresses) expect(rateLimitKey(ip)).toBe(normalizeIP(ip));
    expect(rateLimitKey('2001:db8:85a3:0:1:2:3:4')).toBe(rateLimitKey('2001:db8:85a3:0:9:9:9:9'));
  });
});
