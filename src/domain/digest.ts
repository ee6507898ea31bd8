// Digests of JSON values, as receipts and the audit log write them (API.md §16–§17): SHA-256 of
// the RFC 8785 (JCS) canonical JSON, written `sha256:<hex>`. The canonical form comes from a
// well-kept JCS library, so two parties that hold the same value always agree on its digest.
import { hash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import { badInput } from './errors.ts';
import { JSON_MAX_DEPTH } from './limits.ts';
import { isWellFormed, keySegment } from './values.ts';

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

/** What keeps a value from having a canonical form, and the field path where it is. */
export interface JcsProblem {
  message: string;
  field: string;
}

const NOT_WELL_FORMED = 'a lone surrogate such as "\\ud800" has no canonical JSON form (RFC 8785)';

/**
 * The first thing (in document order) that RFC 8785 refuses in a value taken from JSON: a number
 * that is not finite (1e400 in a request body parses as Infinity) or a string or key holding a
 * lone surrogate (I-JSON, RFC 7493). JSON.stringify writes the first as `null` and the second as
 * an escape without complaint, so the server would digest them, but no other JCS implementation
 * could recompute that digest (most refuse the value).
 * Descends at most `maxDepth` levels (the caller's depth check refuses deeper values).
 */
export function jcsProblem(value: unknown, field: string, maxDepth = JSON_MAX_DEPTH): JcsProblem | null {
  const stack: Array<[unknown, string, number]> = [[value, field, 0]];
  while (stack.length > 0) {
    const [v, at, depth] = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        const why = Number.isNaN(v) ? '' : ' (this one is beyond a double’s range, about ±1.8e308)';
        return { message: `numbers must be finite${why}`, field: at };
      }
    } else if (typeof v === 'string') {
      if (!isWellFormed(v))
        return { message: `strings must be well-formed Unicode: ${NOT_WELL_FORMED}`, field: at };
    } else if (typeof v === 'object' && v !== null && depth < maxDepth) {
      const children: Array<[unknown, string, number]> = [];
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) children.push([v[i], `${at}[${i}]`, depth + 1]);
      } else {
        for (const [key, item] of Object.entries(v)) {
          const keyAt = `${at}${keySegment(key)}`;
          if (!isWellFormed(key))
            return { message: `keys must be well-formed Unicode: ${NOT_WELL_FORMED}`, field: keyAt };
          children.push([item, keyAt, depth + 1]);
        }
      }
      // Reversed onto the stack, so the first child is looked at first.
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  return null;
}

/** Refuses (BAD_USER_INPUT at the path) a value that has no RFC 8785 canonical form. */
export function assertCanonicalizable(value: unknown, field: string, maxDepth?: number): void {
  const problem = jcsProblem(value, field, maxDepth);
  if (problem) throw badInput(problem.message, problem.field);
}
