// Who may post replies to the email channel's inbound door, per provider (API.md §9.1). Each
// check runs on what the provider sent before anything is acted on, and fails closed:
// - Mailgun signs every forwarded message: `signature` = hex HMAC-SHA256 of `timestamp + token`
//   under the webhook signing key (the fields travel in the form body; the key is `secretEnv`).
//   It signs nothing of the mail itself, so the timestamp must be recent (MAILGUN_WINDOW_MS),
//   each token is taken once (inbound.ts), and the route URL carries basic credentials
//   (`basicAuthEnv`), checked before the body is read.
// - SendGrid's Inbound Parse, with a security policy, signs the payload with ECDSA (P-256,
//   SHA-256) over the timestamp header followed by the raw body; `secretEnv` holds the policy's
//   public key (base64 DER, as SendGrid shows it).
// - Postmark signs nothing: its inbound webhook URL carries HTTP basic credentials, so the door
//   requires them; `secretEnv` holds `user:password`.
import { createHash, createHmac, createPublicKey, createVerify, timingSafeEqual } from 'node:crypto';
import type { MailFields } from './reply.ts';

export type InboundProvider = 'postmark' | 'mailgun' | 'sendgrid';

export const SENDGRID_SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

type Headers = Record<string, string | string[] | undefined>;

/** Equal strings, compared in constant time (hashed first, so lengths do not leak either). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function header(headers: Headers, name: string): string | null {
  const v = headers[name];
  return typeof v === 'string' ? v : null;
}

/** How far a Mailgun timestamp may be from now, either way. */
export const MAILGUN_WINDOW_MS = 300_000;
/** How long a Mailgun token stays taken: well past the window in which its signature is accepted. */
export const MAILGUN_TOKEN_TTL_MS = 600_000;

/** Whether a (signed) Mailgun timestamp, in seconds, is within the window around `now` (ms). */
export function mailgunFresh(timestamp: string, now: number): boolean {
  return /^\d{1,12}$/.test(timestamp) && Math.abs(now - Number(timestamp) * 1000) <= MAILGUN_WINDOW_MS;
}

/** Mailgun: the form's timestamp, token and signature against the signing key. */
export function mailgunSigned(key: string, fields: MailFields): boolean {
  const timestamp = fields.get('timestamp');
  const token = fields.get('token');
  const signature = fields.get('signature');
  if (typeof timestamp !== 'string' || typeof token !== 'string' || typeof signature !== 'string')
    return false;
  if (
    !/^\d{1,12}$/.test(timestamp) ||
    token.length < 1 ||
    token.length > 200 ||
    !/^[0-9a-f]{64}$/.test(signature)
  )
    return false;
  const expected = createHmac('sha256', key).update(timestamp).update(token).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** HTTP basic credentials equal to the configured `user:password` (Postmark; Mailgun's route URL). */
export function basicAuthorized(credentials: string, headers: Headers): boolean {
  const given = header(headers, 'authorization');
  if (given === null) return false;
  return sameSecret(given, `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`);
}

/**
 * SendGrid: an ECDSA signature over timestamp + raw body, checked as the body streams by (`update`
 * each chunk, then `verified`); null when the signature headers are missing or malformed, so
 * that such a request is refused before its body is read.
 */
export function sendgridVerifier(
  publicKeyBase64: string,
  headers: Headers,
): { update(chunk: Buffer): void; verified(): boolean } | null {
  const signature = header(headers, SENDGRID_SIGNATURE_HEADER);
  const timestamp = header(headers, SENDGRID_TIMESTAMP_HEADER);
  if (signature === null || timestamp === null || !/^\d{1,12}$/.test(timestamp)) return null;
  if (signature.length > 200 || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return null;
  const v = createVerify('sha256');
  v.update(timestamp);
  return {
    update: (chunk) => v.update(chunk),
    verified() {
      try {
        const key = createPublicKey({
          key: Buffer.from(publicKeyBase64, 'base64'),
          format: 'der',
          type: 'spki',
        });
        return v.verify(key, Buffer.from(signature, 'base64'));
      } catch {
        return false;
      }
    },
  };
}

/** A configured SendGrid key that cannot load is a missing secret (fail closed: 500), not a bad request. */
export function sendgridKeyLoads(publicKeyBase64: string): boolean {
  try {
    createPublicKey({ key: Buffer.from(publicKeyBase64, 'base64'), format: 'der', type: 'spki' });
    return true;
  } catch {
    return false;
  }
}
