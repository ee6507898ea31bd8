// Signs decision receipts (API.md §16) with the first receipt key, as compact JWS (EdDSA).
// Ed25519 signatures are deterministic and the claims are a pure function of the resolved
// record, so a receipt is the same bytes on every read and on every instance that holds the
// same key: it is derived data, signed when asked for and never stored. A small cache spares
// re-signing the questions a client reads again and again.
import { createPrivateKey } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { type ReceiptClaims, receiptClaimsOf } from '../domain/decision-receipt.ts';
import type { QuestionRecord } from '../domain/question.ts';
import { type PublicReceiptJwk, publicJwkOf, type ReceiptJwk } from './receipt-keys.ts';

export interface ReceiptSigner {
  /** The receipt of a resolved question; null while it is pending. */
  sign(question: QuestionRecord): Promise<string | null>;
  /** A compact JWS over any small JSON object (the audit export's signed head). */
  signObject(payload: Record<string, unknown>): Promise<string>;
  /** What `/.well-known/jwks.json` serves: the public parts of every key, the signing key first. */
  jwks(): { keys: PublicReceiptJwk[] };
  /** The `kid` that signs. */
  readonly signingKid: string;
  /**
   * The claims of a receipt this server signed (any of its keys, this issuer); null when the
   * signature, the key or the issuer does not check out (API.md §23's consume).
   */
  verify(jws: string): Promise<Record<string, unknown> | null>;
}

export interface ReceiptSignerOptions {
  /** The keys, the signing key first (at least one). */
  keys: readonly ReceiptJwk[];
  /** `iss` of every receipt: the server's public base URL (read at each signing: known once listening). */
  issuer: () => string;
  /** How many receipts are kept ready (default 10,000; 0 keeps none). */
  cacheSize?: number;
}

export const RECEIPT_ALG = 'EdDSA';
export const RECEIPT_TYP = 'JWT';

export async function createReceiptSigner(o: ReceiptSignerOptions): Promise<ReceiptSigner> {
  const signing = o.keys[0];
  if (!signing) throw new Error('a receipt signer needs at least one key');
  const jwks = { keys: o.keys.map(publicJwkOf) };
  const cacheSize = o.cacheSize ?? 10_000;
  const cache = new Map<string, string>();

  // Signed with fast-jwt, which signs with node:crypto's one-shot Ed25519 `sign` on this thread:
  // jose 6 signs only through WebCrypto, whose job hop to the thread pool cost more than 40 % of
  // a bare signature and kept receipts at half of one (bench/README.md, "Receipt signing"). The
  // claims are serialised with JSON.stringify as before; fast-jwt adds `iat` to a payload that has
  // none unless told not to, and keeps a payload's own integer `iat` as it is, so each payload
  // goes to the signer that leaves it unchanged. Verification stays with jose.
  const pem = createPrivateKey({ key: { ...signing }, format: 'jwk' }).export({
    format: 'pem',
    type: 'pkcs8',
  });
  const options = {
    key: pem.toString(),
    algorithm: RECEIPT_ALG,
    kid: signing.kid,
    typ: RECEIPT_TYP,
  } as const;
  const keepIat = createSigner(options);
  const noIat = createSigner({ ...options, noTimestamp: true });
  const signClaims = async (claims: ReceiptClaims | Record<string, unknown>): Promise<string> =>
    Number.isInteger(claims.iat) ? keepIat(claims) : noIat(claims);

  const keySet = createLocalJWKSet(jwks);

  return {
    signingKid: signing.kid,
    jwks: () => jwks,
    async verify(jws) {
      try {
        const { payload } = await jwtVerify(jws, keySet, { algorithms: [RECEIPT_ALG], issuer: o.issuer() });
        return payload as Record<string, unknown>;
      } catch {
        return null;
      }
    },
    signObject: signClaims,
    async sign(question) {
      if (question.status === 'PENDING') return null;
      const issuer = o.issuer();
      // A resolved question never changes again: its id (under this issuer) is the whole key.
      const key = `${issuer}\n${question.id}`;
      const kept = cache.get(key);
      if (kept !== undefined) return kept;
      const claims = receiptClaimsOf(question, issuer);
      if (!claims) return null;
      const jws = await signClaims(claims);
      if (cacheSize > 0) {
        if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
        cache.set(key, jws);
      }
      return jws;
    },
  };
}
