// What a browser's push subscription must be before it is stored (API.md §19). The server never
// posts to an address a user picks: the endpoint must be https:// on a push service host of
// INTERACTIONS_PUSH_HOSTS (a `*.` entry covers subdomains) on that entry's port (443 for a bare
// host; `host:port` is allowed only for loopback hosts), or http:// on a loopback `host:port`
// the list names (tests). The keys must be what RFC 8291 encrypts to: `p256dh` a P-256 public
// point (checked by node:crypto, never by hand), `auth` a 16-byte secret.
import { createPublicKey } from 'node:crypto';
import { DomainError } from '../../domain/errors.ts';
import { isPlainObject } from '../../domain/values.ts';

export const MAX_ENDPOINT_CHARS = 2048;
/** RFC 8291: the subscription's authentication secret is 16 bytes. */
export const AUTH_SECRET_BYTES = 16;
/** An uncompressed P-256 point: 0x04, then x and y of 32 bytes each. */
const P256_POINT_BYTES = 65;

export const DEFAULT_PUSH_HOSTS: readonly string[] = Object.freeze([
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  'web.push.apple.com',
  '*.notify.windows.com',
]);

/** The hosts a `host:port` entry of INTERACTIONS_PUSH_HOSTS may name (as URL.hostname spells them). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);
/** The port a bare host of INTERACTIONS_PUSH_HOSTS means. */
export const DEFAULT_PUSH_PORT = 443;

export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

function bad(message: string, field: string): DomainError {
  return new DomainError('BAD_USER_INPUT', message, field);
}

/** An entry of the list as host and port: `host:port`, or a bare host meaning port 443. */
export function pushHostEntry(entry: string): { host: string; port: number } {
  const m = /^(.*):([0-9]{1,5})$/.exec(entry);
  return m ? { host: m[1]!, port: Number(m[2]) } : { host: entry, port: DEFAULT_PUSH_PORT };
}

function hostMatches(pattern: string, host: string): boolean {
  return pattern.startsWith('*.')
    ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1
    : host === pattern;
}

/** Whether `url` is a push service endpoint of `hosts` (see the head of this file). */
export function endpointAllowed(url: URL, hosts: readonly string[]): boolean {
  if (url.username !== '' || url.password !== '') return false;
  const https = url.protocol === 'https:';
  if (!https && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return false;
  const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
  return hosts.some((entry) => {
    const e = pushHostEntry(entry);
    return e.port === port && hostMatches(e.host, url.hostname);
  });
}

/** The bytes of a base64url key field, or null when it is not base64url (padding allowed). */
function keyBytes(text: unknown, maxChars: number): Buffer | null {
  if (typeof text !== 'string' || text.length > maxChars || !B64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  // Canonical only: stray bits in the last character would make two texts one key.
  return bytes.toString('base64url') === text.replace(/=+$/, '') ? bytes : null;
}

/** Whether `bytes` is an uncompressed point on P-256: node:crypto decides, on its own checks. */
function isP256Point(bytes: Buffer): boolean {
  if (bytes.length !== P256_POINT_BYTES || bytes[0] !== 0x04) return false;
  try {
    createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: bytes.subarray(1, 33).toString('base64url'),
        y: bytes.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}

/** The subscription a browser's PushSubscription.toJSON() gives, checked; BAD_USER_INPUT otherwise. */
export function parseSubscription(body: unknown, hosts: readonly string[]): PushSubscriptionInput {
  if (!isPlainObject(body))
    throw bad('expected the browser’s push subscription as a JSON object', 'subscription');
  const { endpoint, keys } = body;
  if (typeof endpoint !== 'string' || endpoint.length === 0 || endpoint.length > MAX_ENDPOINT_CHARS) {
    throw bad(`endpoint must be a URL of at most ${MAX_ENDPOINT_CHARS} characters`, 'endpoint');
  }
  const url = URL.parse(endpoint);
  if (url === null || !endpointAllowed(url, hosts)) {
    throw bad(
      `endpoint must be an https:// URL of a push service this server allows (${hosts.join(', ')})`,
      'endpoint',
    );
  }
  if (!isPlainObject(keys)) throw bad('keys must hold p256dh and auth', 'keys');
  const { p256dh, auth } = keys;
  const point = keyBytes(p256dh, 100);
  if (point === null || !isP256Point(point)) {
    throw bad(
      'keys.p256dh must be the subscription’s P-256 public key (an uncompressed point, base64url)',
      'keys.p256dh',
    );
  }
  if (keyBytes(auth, 32)?.length !== AUTH_SECRET_BYTES) {
    throw bad(
      `keys.auth must be the subscription’s ${AUTH_SECRET_BYTES}-byte auth secret (base64url)`,
      'keys.auth',
    );
  }
  return { endpoint, keys: { p256dh: p256dh as string, auth: auth as string } };
}
