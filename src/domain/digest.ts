// Digests of JSON values, as receipts and the audit log write them (API.md §16–§17): SHA-256 of
// the RFC 8785 (JCS) canonical JSON, written `sha256:<hex>`. The canonical form comes from a
// well-kept JCS library, so two parties that hold the same value always agree on its digest.
import { hash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// The package is CommonJS whose typings declare an ES default export; under Node's interop the
// default import is the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** The JCS canonical JSON of a JSON value (`undefined` is refused: it has no JSON form). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('a value without a JSON form has no digest');
  return text;
}

/** `sha256:` + the hex SHA-256 of the value's canonical JSON (a string is hashed as a JSON string). */
export function jcsDigest(value: unknown): string {
  // One-shot: no Hash object per digest (every answer's audit entry takes one).
  return `sha256:${hash('sha256', canonicalJson(value), 'hex')}`;
}
