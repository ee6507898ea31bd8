// JSON text from a request body: parsed under the depth cap, every failure a clear 400.
import { DomainError } from './errors.ts';
import { jsonDepth } from './json-schema.ts';
import { JSON_MAX_DEPTH } from './limits.ts';

/** The parsed value, or undefined for an empty (or all-whitespace) body. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('BAD_USER_INPUT', 'request body is not valid JSON');
  }
  if (jsonDepth(value, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) {
    throw new DomainError('BAD_USER_INPUT', `request body is nested deeper than ${JSON_MAX_DEPTH} levels`);
  }
  return value;
}
