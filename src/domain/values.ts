// Small pure helpers over plain values, shared by the domain, the verifiers, auth and the engine,
// so each has one definition and one behaviour.

/** Request headers as Node gives them: lower-case names, repeated headers as arrays. */
export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * A plain object: not null, not an array, and made by `{}`, `JSON.parse` or
 * `Object.create(null)`. Class instances and objects with another prototype are refused, so a
 * value cannot smuggle inherited properties into a check.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An own property, or undefined (never one inherited from the prototype, such as `__proto__`). */
export function own(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const SEGMENT_MAX = 64;

/** An object key as a field path segment: `.name` when it reads as one, `["…"]` (as JSON) otherwise. */
export function keySegment(key: string): string {
  const shown = clip(key, SEGMENT_MAX);
  return IDENTIFIER.test(shown) ? `.${shown}` : `[${JSON.stringify(shown)}]`;
}

/** A lone UTF-16 surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `s` is well-formed Unicode (no lone surrogate), as I-JSON (RFC 7493) requires. */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/**
 * `s` cut to at most `max` code points, with `…` when cut. Only the first `2 * max + 2` UTF-16
 * units are looked at (enough to hold `max + 1` code points, astral ones included), so a huge
 * string costs no more than a short one.
 */
export function clip(s: string, max: number): string {
  const chars = [...s.slice(0, max * 2 + 2)];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : s;
}

/** `s` in at most `width` code points, the `…` included: a table cell, one terminal line. */
export function fitWidth(s: string, width: number): string {
  return clip(s, width) === s ? s : clip(s, width - 1);
}

/** How long each choice in an error message may be. */
const CHOICE_MAX_CHARS = 40;

/**
 * The valid choices for an error that refuses one ("answer must be one of the options: …"): the
 * first `max` (default 10), each as JSON (so `"1"` and `1` differ) cut to 40 code points, then
 * how many more, so a list of 100 long options still makes a short message. `none` is said
 * when there is nothing to choose.
 */
export function listChoices(values: Iterable<unknown>, none = 'none', max = 10): string {
  const shown: string[] = [];
  let more = 0;
  for (const v of values) {
    if (shown.length === max) {
      more++;
      continue;
    }
    shown.push(
      typeof v === 'string'
        ? JSON.stringify(clip(v, CHOICE_MAX_CHARS))
        : clip(JSON.stringify(v) ?? String(v), CHOICE_MAX_CHARS),
    );
  }
  if (shown.length === 0) return none;
  return more > 0 ? `${shown.join(', ')}, … (${more} more)` : shown.join(', ');
}
