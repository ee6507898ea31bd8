// Discord's interaction signing: `X-Signature-Ed25519` is the hex Ed25519 signature, under the
// application's public key, of `X-Signature-Timestamp` followed by the raw body. Verified with
// Node's own Ed25519 (no hand-rolled crypto). Discord names no window for the timestamp; we take
// the one Slack uses, so a captured request cannot be replayed later (a replay within the window
// is refused by the interaction id instead: `dedupe` in events.ts).
import { createPublicKey, type KeyObject, verify } from 'node:crypto';

export const DISCORD_MAX_SKEW_SECONDS = 300;

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? undefined : value;
}

/** The application's public key (64 hex characters, as the developer portal shows it). */
export function discordPublicKey(hex: string): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') },
    format: 'jwk',
  });
}

export function checkDiscordSignature(
  key: KeyObject,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  now: number,
): SignatureCheck {
  const timestamp = header(headers, 'x-signature-timestamp');
  const signature = header(headers, 'x-signature-ed25519');
  if (timestamp === undefined || signature === undefined) return 'missing';
  // Checked before any crypto: a forged header costs a regular expression, nothing more.
  if (!/^\d{1,12}$/.test(timestamp) || !/^[0-9a-fA-F]{128}$/.test(signature)) return 'mismatch';
  if (Math.abs(now / 1000 - Number(timestamp)) > DISCORD_MAX_SKEW_SECONDS) return 'stale';
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]);
  return verify(null, signed, key, Buffer.from(signature, 'hex')) ? 'ok' : 'mismatch';
}
