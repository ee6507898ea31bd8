// Signs decision receipts (API.md §16) with the first receipt key, as compact JWS (EdDSA).
// Ed25519 signatures are deterministic and the claims are a pure function of the resolved
// record, so a receipt is the same bytes on every read and on every instance that holds the
// same key: it is derived data, signed when asked for and never stored. A small cache spares
// re-signing the questions a client reads again and again.
import { CompactSign, createLocalJWKSet, importJWK, jwtVerify } from 'jose';
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
  // The private part lives only in this non-extractable key object from here on.
  const privateKey = await importJWK({ ...signing, alg: RECEIPT_ALG }, RECEIPT_ALG, { extractable: false });
  const header = { alg: RECEIPT_ALG, kid: signing.kid, typ: RECEIPT_TYP } as const;
  const jwks = { keys: o.keys.map(publicJwkOf) };
  const cacheSize = o.cacheSize ?? 10_000;
  const cache = new Map<string, string>();

  // jose's compact JWS over the claims' JSON: the bytes SignJWT writes (it serializes the same
  // object with JSON.stringify), without its deep copy (a structuredClone per receipt) and claim
  // checks, a fifth of a receipt's CPU when profiled (bench/README.md, "Receipt signing").
  const encoder = new TextEncoder();
  const signClaims = (claims: ReceiptClaims | Record<string, unknown>): Promise<string> =>
    new CompactSign(encoder.encode(JSON.stringify(claims))).setProtectedHeader(header).sign(privateKey);

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
