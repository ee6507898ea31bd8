// Checking a decision receipt offline (API.md §16) before acting on a decision: the signature
// against the server's published keys (EdDSA only), the issuer, and — when the caller says what
// it is about to run — that the person approved exactly that action with exactly those arguments.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import type { ReceiptClaims } from '../domain/decision-receipt.ts';
import { jcsDigest } from '../domain/digest.ts';

export type {
  ReceiptClaims,
  ReceiptOutcomeClaims,
  ReceiptQuestionClaims,
} from '../domain/decision-receipt.ts';

/** Why a receipt was refused; each names one thing that differs. */
export type ReceiptFailure =
  /** Not a compact JWS with a receipt's claims. */
  | 'malformed'
  /** No published key has the receipt's `kid`. */
  | 'unknown_key'
  /** The signature does not match the bytes: altered, or signed by another key. */
  | 'signature'
  /** Signed by another server (`iss`). */
  | 'issuer'
  /** About another question (`sub`). */
  | 'question'
  /** The approved action differs from the one about to run, or none was approved. */
  | 'action'
  /** The key set could not be read. */
  | 'keys';

export class ReceiptVerificationError extends Error {
  readonly reason: ReceiptFailure;

  constructor(reason: ReceiptFailure, message: string) {
    super(message);
    this.name = 'ReceiptVerificationError';
    this.reason = reason;
  }
}

/** The action a tool is about to run: what the approval must have approved, after any edits. */
export interface ReceiptAction {
  name: string;
  arguments: Record<string, unknown>;
}

export interface VerifyReceiptOptions {
  /** The server's key set (the JSON of `/.well-known/jwks.json`), for fully offline checks. */
  jwks?: JSONWebKeySet;
  /** Where to fetch the key set (cached by the library); also gives the expected issuer. */
  jwksUrl?: string | URL;
  /** The expected `iss`; default: the `jwksUrl` without `/.well-known/jwks.json`. */
  issuer?: string;
  /** The expected question id. */
  questionId?: string;
  /** The action about to run: the receipt must approve exactly it. */
  action?: ReceiptAction;
  /**
   * Also use the approval, once (API.md §23): after the checks, `client.consumeApproval` with
   * the receipt and its approved digest. A second use anywhere throws AlreadyAnsweredError.
   */
  consume?: boolean;
  /** The client that consumes (with `consume: true`): the asker's or an executor's. */
  client?: { consumeApproval(questionId: string, receipt: string, actionDigest?: string): Promise<unknown> };
}

const JWKS_SUFFIX = '/.well-known/jwks.json';

function keysOf(o: VerifyReceiptOptions): JWTVerifyGetKey {
  if (o.jwks) return createLocalJWKSet(o.jwks);
  if (o.jwksUrl) return createRemoteJWKSet(new URL(o.jwksUrl));
  throw new TypeError('verifyReceipt needs `jwks` or `jwksUrl`');
}

function expectedIssuer(o: VerifyReceiptOptions): string | undefined {
  if (o.issuer !== undefined) return o.issuer;
  if (o.jwksUrl === undefined) return undefined;
  const url = String(o.jwksUrl);
  return url.endsWith(JWKS_SUFFIX) ? url.slice(0, -JWKS_SUFFIX.length) : undefined;
}

function refusal(err: unknown): ReceiptVerificationError {
  if (err instanceof joseErrors.JWKSNoMatchingKey) {
    return new ReceiptVerificationError('unknown_key', 'no published key matches the receipt’s kid');
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return new ReceiptVerificationError('signature', 'the signature does not match the receipt');
  }
  if (err instanceof joseErrors.JWKSInvalid || err instanceof joseErrors.JOSENotSupported) {
    return new ReceiptVerificationError('keys', `the key set cannot be used: ${(err as Error).message}`);
  }
  if (err instanceof joseErrors.JOSEError) {
    return new ReceiptVerificationError('malformed', `not a valid receipt: ${err.message}`);
  }
  return new ReceiptVerificationError('keys', `the key set could not be read: ${(err as Error).message}`);
}

function isClaims(p: Record<string, unknown>): p is ReceiptClaims & Record<string, unknown> {
  const q = p.question as Record<string, unknown> | undefined;
  const out = p.outcome as Record<string, unknown> | undefined;
  return (
    typeof p.sub === 'string' &&
    typeof p.iss === 'string' &&
    typeof q === 'object' &&
    q !== null &&
    typeof out === 'object' &&
    out !== null &&
    typeof out.status === 'string'
  );
}

/**
 * Verifies a receipt and returns its claims. Throws ReceiptVerificationError with a `reason`
 * naming what differs. Nothing is fetched when `jwks` is given.
 */
export async function verifyReceipt(receipt: string, o: VerifyReceiptOptions): Promise<ReceiptClaims> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(receipt, keysOf(o), { algorithms: ['EdDSA'] }));
  } catch (err) {
    throw refusal(err);
  }
  if (!isClaims(payload))
    throw new ReceiptVerificationError('malformed', 'the payload is not a decision receipt');
  const issuer = expectedIssuer(o);
  if (issuer !== undefined && payload.iss !== issuer) {
    throw new ReceiptVerificationError('issuer', `issued by ${payload.iss}, expected ${issuer}`);
  }
  if (o.questionId !== undefined && payload.sub !== o.questionId) {
    throw new ReceiptVerificationError('question', `about question ${payload.sub}, expected ${o.questionId}`);
  }
  if (o.action) {
    const approved = (payload.outcome as { approvedActionDigest?: unknown }).approvedActionDigest;
    if (typeof approved !== 'string') {
      throw new ReceiptVerificationError('action', 'the receipt approves no action');
    }
    const wanted = jcsDigest({ name: o.action.name, arguments: o.action.arguments });
    if (approved !== wanted) {
      throw new ReceiptVerificationError('action', 'the approved action differs from the one about to run');
    }
  }
  if (o.consume) {
    if (!o.client) throw new TypeError('verifyReceipt with consume: true needs `client`');
    const approved = (payload.outcome as { approvedActionDigest?: unknown }).approvedActionDigest;
    await o.client.consumeApproval(payload.sub, receipt, typeof approved === 'string' ? approved : undefined);
  }
  return payload;
}
