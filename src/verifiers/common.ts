// Pieces shared by the built-in verifiers: config checks, secret lookup, header reading and
// constant-time MAC comparison. Internal to src/verifiers/.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { badInput, isDomainError } from '../domain/errors.ts';
import { clip, isPlainObject, listChoices, own } from '../domain/values.ts';
import { VerificationFailed, VerifierUnavailable, type VerifyRequest } from './types.ts';

type VerifyHeaders = VerifyRequest['headers'];

export const CONFIG_FIELD = 'input.verifier.config';
/** The length of an HMAC-SHA256 digest in bytes. */
export const MAC_BYTES = 32;
/** More candidate signatures than this in one request is refused outright: it bounds the work a request can cause. */
export const MAX_SIGNATURES = 16;

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/i;
const ENV_NAME_MAX = 128;
const KEY_SHOWN_MAX = 64;
const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const SHA256_PREFIX = 'sha256=';

/** The config must be a plain object holding only `allowed` keys. */
export function checkShape(config: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(config)) throw badInput('verifier config must be an object', CONFIG_FIELD);
  const record = config;
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw badInput(
        `unknown verifier config key (expected: ${listChoices(allowed)})`,
        `${CONFIG_FIELD}.${clip(key, KEY_SHOWN_MAX)}`,
      );
    }
  }
  return record;
}

/** An optional option: absent means `fallback`; an explicit `null` is a value, and is refused by its check. */
export function optional(record: Record<string, unknown>, key: string, fallback: unknown): unknown {
  const value = own(record, key);
  return value === undefined ? fallback : value;
}

/** `secretEnv`: required, the name of an environment variable (never a secret itself). */
export function checkSecretEnv(config: Record<string, unknown>): string {
  const field = `${CONFIG_FIELD}.secretEnv`;
  const value = own(config, 'secretEnv');
  if (value === undefined) throw badInput('secretEnv is required', field);
  if (typeof value !== 'string' || value.length > ENV_NAME_MAX || !ENV_NAME.test(value)) {
    throw badInput(
      `secretEnv must name an environment variable (letters, digits and _, not starting with a digit, at most ${ENV_NAME_MAX} characters)`,
      field,
    );
  }
  return value;
}

/**
 * Parses a stored config for a run. It was checked at ask time, so a failure here means the
 * binding cannot be honoured: the verifier fails closed.
 */
export function configForRun<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (isDomainError(err)) throw new VerifierUnavailable('verifier config is invalid');
    throw err;
  }
}

/** The secret's UTF-8 bytes from `env[secretEnv]`; unset or empty fails closed. */
export function readSecret(secretEnv: string, env: Readonly<Record<string, string | undefined>>): Buffer {
  const value = Object.hasOwn(env, secretEnv) ? env[secretEnv] : undefined;
  if (typeof value !== 'string' || value === '') {
    throw new VerifierUnavailable(`environment variable ${secretEnv} is not set`);
  }
  return Buffer.from(value, 'utf8');
}

/** Every value of a header (lower-cased lookup), in order; non-strings are ignored. */
export function headerValues(headers: VerifyHeaders, name: string): string[] {
  const key = name.toLowerCase();
  const raw = Object.hasOwn(headers, key) ? headers[key] : undefined;
  const list: unknown[] = Array.isArray(raw) ? raw : [raw];
  return list.filter((v): v is string => typeof v === 'string');
}

/**
 * The comma-separated signature candidates of a header (Node joins a repeated header with ", "),
 * trimmed, empty items dropped. None: the header is missing. Too many: refused.
 */
export function signatureCandidates(headers: VerifyHeaders, name: string): string[] {
  const out: string[] = [];
  for (const value of headerValues(headers, name)) {
    for (const item of value.split(',')) {
      const trimmed = item.trim();
      if (trimmed === '') continue;
      if (out.length === MAX_SIGNATURES) throw new VerificationFailed('too many signatures');
      out.push(trimmed);
    }
  }
  if (out.length === 0) throw new VerificationFailed('missing signature header');
  return out;
}

/** `<64 hex>` (either case) → 32 bytes, else null. */
export function decodeHex(s: string): Buffer | null {
  return HEX_SHA256.test(s) ? Buffer.from(s, 'hex') : null;
}

/** `sha256=<64 hex>` (prefix in either case) → 32 bytes; with `prefixOptional`, a bare `<64 hex>` too. */
export function decodeSha256Hex(s: string, prefixOptional: boolean): Buffer | null {
  if (s.length > SHA256_PREFIX.length && s.slice(0, SHA256_PREFIX.length).toLowerCase() === SHA256_PREFIX) {
    return decodeHex(s.slice(SHA256_PREFIX.length));
  }
  return prefixOptional ? decodeHex(s) : null;
}

const BASE64_STD = /^[A-Za-z0-9+/]{43}=?$/;
const BASE64_URL = /^[A-Za-z0-9_-]{43}=?$/;

/** Standard or URL-safe base64 of exactly 32 bytes (padding optional) → the bytes, else null. */
export function decodeBase64Mac(s: string): Buffer | null {
  if (!BASE64_STD.test(s) && !BASE64_URL.test(s)) return null;
  const bytes = Buffer.from(s, 'base64');
  return bytes.length === MAC_BYTES ? bytes : null;
}

export function hmacSha256(key: Buffer, ...parts: Buffer[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Whether any candidate equals `expected`, in constant time: every candidate is compared (no
 * early exit), and one that did not decode, or has the wrong length, is compared against a
 * zero buffer of the right length so it costs the same.
 */
export function anyMatches(expected: Buffer, candidates: readonly (Buffer | null)[]): boolean {
  const filler = Buffer.alloc(expected.length);
  let matched = 0;
  for (const candidate of candidates) {
    const usable = candidate !== null && candidate.length === expected.length;
    const equal = timingSafeEqual(expected, usable ? candidate : filler);
    matched |= Number(usable) & Number(equal);
  }
  return matched === 1;
}
