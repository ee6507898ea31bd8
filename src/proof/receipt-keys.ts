// The keys that sign decision receipts (API.md §16): a JWK Set of Ed25519 private keys, each
// with a `kid`; the first signs, all verify, so a new key is rotated in by putting it first and
// an old one retired by removing it once no receipt that it signed is still needed. The shape
// is checked when the settings are read (one line naming the variable); the keys are imported
// into the crypto runtime when the server starts.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

/** An Ed25519 private key as a JWK, with the `kid` receipts name it by. */
export interface ReceiptJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  d: string;
  kid: string;
}

/** What `/.well-known/jwks.json` publishes of a key: never `d`. */
export interface PublicReceiptJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

const B64URL = /^[A-Za-z0-9_-]+$/;
/** An Ed25519 key's `x` and `d` are 32 bytes: 43 base64url characters without padding. */
const KEY_PART = /^[A-Za-z0-9_-]{43}$/;
const KID = /^[\x21-\x7e]{1,128}$/;
export const MAX_RECEIPT_KEYS = 16;

/**
 * Parses the JWK Set text; throws an Error whose message is one line that never quotes key
 * material (a `kid` may be quoted: it is public).
 */
export function parseReceiptKeySet(text: string): ReceiptJwk[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('not JSON (expected a JWK Set: {"keys": [...]})');
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new Error(
      'expected a JWK Set with at least one key: {"keys": [{"kty":"OKP","crv":"Ed25519",...}]}',
    );
  }
  if (keys.length > MAX_RECEIPT_KEYS)
    throw new Error(`at most ${MAX_RECEIPT_KEYS} keys (got ${keys.length})`);
  const seen = new Set<string>();
  return keys.map((k: unknown, i: number): ReceiptJwk => {
    const key = (k ?? {}) as Record<string, unknown>;
    const at = `key ${i + 1}`;
    if (key.kty !== 'OKP' || key.crv !== 'Ed25519')
      throw new Error(`${at}: expected kty "OKP" and crv "Ed25519"`);
    if (typeof key.kid !== 'string' || !KID.test(key.kid)) {
      throw new Error(`${at}: needs a "kid" of 1 to 128 printable characters`);
    }
    if (seen.has(key.kid)) throw new Error(`${at}: kid ${JSON.stringify(key.kid)} is used twice`);
    seen.add(key.kid);
    if (typeof key.x !== 'string' || !KEY_PART.test(key.x))
      throw new Error(`${at}: "x" is not an Ed25519 public key`);
    if (typeof key.d !== 'string' || !B64URL.test(key.d) || !KEY_PART.test(key.d)) {
      throw new Error(
        `${at} (kid ${JSON.stringify(key.kid)}): needs its private part "d" (an Ed25519 private key)`,
      );
    }
    return { kty: 'OKP', crv: 'Ed25519', x: key.x, d: key.d, kid: key.kid };
  });
}

export function publicJwkOf(key: ReceiptJwk): PublicReceiptJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: key.x, kid: key.kid, alg: 'EdDSA', use: 'sig' };
}

/** A fresh Ed25519 key, its `kid` the RFC 7638 thumbprint of its public part. */
export async function generateReceiptKey(): Promise<ReceiptJwk> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk: JWK = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x as string });
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string, d: jwk.d as string, kid };
}
