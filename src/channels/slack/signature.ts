// Slack's request signing: `v0=` + hex HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`),
// with the timestamp at most five minutes from now. Compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SLACK_MAX_SKEW_SECONDS = 300;

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? undefined : value;
}

export function slackSignature(secret: string, timestamp: string, rawBody: Buffer): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

export function checkSlackSignature(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  now: number,
): SignatureCheck {
  const timestamp = header(headers, 'x-slack-request-timestamp');
  const signature = header(headers, 'x-slack-signature');
  if (timestamp === undefined || signature === undefined) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'mismatch';
  if (Math.abs(now / 1000 - Number(timestamp)) > SLACK_MAX_SKEW_SECONDS) return 'stale';
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'mismatch';
}
