// Caller-supplied JSON Schemas (API.md §5.1, §5.3): size and draft checks, compilation with Ajv,
// and validation of answers with errors located at `answer.<path>`.
// Draft 2020-12 by default, draft-07 when `$schema` names it. Remote `$ref`s are never fetched.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { badInput, type DomainError, isDomainError } from './errors.ts';
import { formatWords } from './format-words.ts';
import { JSON_MAX_DEPTH, SCHEMA_MAX_BYTES, utf8ByteLength } from './limits.ts';
import { linearRegExp, PATTERN_WORK_MAX, PatternBudgetExceeded, withPatternBudget } from './linear-regexp.ts';
import type { JsonObject } from './question.ts';
import { uniqueItemsKeyword } from './unique-items.ts';
import { clip, isPlainObject, keySegment, listChoices } from './values.ts';

export type SchemaDraft = '2020-12' | 'draft-07';

export interface CompiledSchema {
  /** A detached, plain-JSON copy of the schema as given, shared by cache hits: do not mutate. */
  readonly schema: JsonObject;
  /** The schema serialized as JSON (its cache key); `JSON.parse` it for a private copy. */
  readonly serialized: string;
  readonly draft: SchemaDraft;
  readonly validate: ValidateFunction;
}

const DRAFT_07_IDS = new Set([
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-07/schema',
]);
const DRAFT_2020_IDS = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
]);

const CACHE_MAX = 500;
/** Ajv keeps a little state per compiled schema (nested `$id`s); recycle instances to bound it. */
const COMPILES_PER_INSTANCE = 256;
const MESSAGE_MAX = 200;

const AJV_OPTIONS: Options = {
  strict: false,
  logger: false,
  allErrors: false,
  addUsedSchema: false,
  coerceTypes: false,
  // `required: ["__proto__"]` (or "constructor", "toString") must not be met by {} through
  // inherited properties: only own properties count.
  ownProperties: true,
  useDefaults: false,
  removeAdditional: false,
  validateSchema: true,
  code: { regExp: linearRegExp },
};

// ajv-formats is CommonJS; its default export is the plugin (and carries itself as `.default`).
const addFormats = addFormatsModule.default ?? addFormatsModule;

type AjvInstance = Ajv | Ajv2020;
interface Slot {
  ajv: AjvInstance | null;
  compiles: number;
}
const slots: Record<SchemaDraft, Slot> = {
  '2020-12': { ajv: null, compiles: 0 },
  'draft-07': { ajv: null, compiles: 0 },
};

function ajvFor(draft: SchemaDraft): AjvInstance {
  const slot = slots[draft];
  if (!slot.ajv || slot.compiles >= COMPILES_PER_INSTANCE) {
    const ajv = draft === 'draft-07' ? new Ajv(AJV_OPTIONS) : new Ajv2020(AJV_OPTIONS);
    addFormats(ajv);
    ajv.removeKeyword('uniqueItems');
    ajv.addKeyword(uniqueItemsKeyword);
    slot.ajv = ajv;
    slot.compiles = 0;
  }
  slot.compiles++;
  return slot.ajv;
}

const cache = new Map<string, CompiledSchema>();

function remember(key: string, compiled: CompiledSchema): void {
  cache.set(key, compiled);
  while (cache.size > CACHE_MAX) {
    const oldest = cache.keys().next();
    if (oldest.done) break;
    cache.delete(oldest.value);
  }
}

// Re-exported for the modules that already import it from here; defined once in values.ts.
export { isPlainObject };

/**
 * Nesting depth of a JSON-like value: a scalar is 0, `{}` and `[]` are 1, `[[1]]` is 2.
 * Iterative, so deep values cannot overflow the stack. With `stopAbove`, the walk ends as soon
 * as the depth exceeds it (and returns `stopAbove + 1`), which also bounds cyclic values.
 */
export function jsonDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const depth = d + 1;
    if (depth > max) {
      max = depth;
      if (max > stopAbove) return stopAbove + 1;
    }
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth]);
    }
  }
  return max;
}

/**
 * True when `value` is plain JSON (null, boolean, finite number, string, array, plain object)
 * nested at most `maxDepth` levels. Iterative.
 */
export function isJsonValue(value: unknown, maxDepth = JSON_MAX_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return false;
      continue;
    }
    if (d + 1 > maxDepth) return false;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return false;
      for (let i = 0; i < v.length; i++) stack.push([v[i], d + 1]);
      continue;
    }
    if (!isPlainObject(v)) return false;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return true;
}

function draftOf(schema: JsonObject, field: string): SchemaDraft {
  if (!Object.hasOwn(schema, '$schema')) return '2020-12';
  const declared = schema.$schema;
  if (typeof declared === 'string') {
    if (DRAFT_07_IDS.has(declared)) return 'draft-07';
    if (DRAFT_2020_IDS.has(declared)) return '2020-12';
  }
  throw badInput('$schema must name draft 2020-12 or draft-07', field);
}

/**
 * Checks and compiles a caller-supplied JSON Schema. Throws BAD_USER_INPUT at `field` when it is
 * not a JSON object, is over 64 KiB serialized, names an unsupported draft, fails its meta-schema
 * or does not compile (including unresolvable or remote `$ref`s).
 */
export function compileJsonSchema(schema: unknown, field: string): CompiledSchema {
  try {
    return compile(schema, field);
  } catch (err) {
    throw asBadInput(err, field);
  }
}

function compile(schema: unknown, field: string): CompiledSchema {
  if (!isPlainObject(schema)) throw badInput('schema must be a JSON object', field);
  if (!isJsonValue(schema, JSON_MAX_DEPTH)) {
    throw badInput(`schema must be plain JSON nested at most ${JSON_MAX_DEPTH} levels`, field);
  }
  let serialized: string;
  try {
    serialized = JSON.stringify(schema);
  } catch {
    throw badInput('schema must be plain JSON', field);
  }
  // UTF-8 bytes are never fewer than UTF-16 units, so the first test is a cheap early out.
  if (serialized.length > SCHEMA_MAX_BYTES || utf8ByteLength(serialized) > SCHEMA_MAX_BYTES) {
    throw badInput(`schema must be at most ${SCHEMA_MAX_BYTES} bytes serialized`, field);
  }
  const hit = cache.get(serialized);
  if (hit) {
    cache.delete(serialized);
    cache.set(serialized, hit);
    return hit;
  }
  const copy = JSON.parse(serialized) as JsonObject;
  const draft = draftOf(copy, field);
  const ajv = ajvFor(draft);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(copy);
  } catch (err) {
    const detail = err instanceof Error ? err.message : 'invalid schema';
    throw badInput(clip(`schema does not compile: ${detail}`, MESSAGE_MAX), field);
  } finally {
    try {
      ajv.removeSchema(copy);
    } catch {
      // nothing to forget
    }
  }
  const compiled: CompiledSchema = { schema: copy, serialized, draft, validate };
  remember(serialized, compiled);
  return compiled;
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Renders the failing location of an Ajv error as `root.a.b`, `root.items[1]`, `root.email`. */
function fieldOf(error: ErrorObject, value: unknown, root: string): string {
  let path = root;
  let node: unknown = value;
  for (const seg of decodePointer(error.instancePath)) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(seg)) {
      path += `[${seg}]`;
      node = node[Number(seg)];
    } else {
      path += keySegment(seg);
      node = isPlainObject(node) && Object.hasOwn(node, seg) ? node[seg] : undefined;
    }
  }
  const params = error.params as Record<string, unknown>;
  for (const key of ['missingProperty', 'additionalProperty', 'unevaluatedProperty', 'propertyName']) {
    const extra = params[key];
    if (typeof extra === 'string') {
      path += keySegment(extra);
      break;
    }
  }
  return path;
}

/** Validates `value` against a compiled schema; the error's field is the failing path under `fieldRoot`. */
export function validateAgainst(compiled: CompiledSchema, value: unknown, fieldRoot: string): void {
  try {
    check(compiled, value, fieldRoot);
  } catch (err) {
    throw asBadInput(err, fieldRoot);
  }
}

function check(compiled: CompiledSchema, value: unknown, fieldRoot: string): void {
  let ok: boolean;
  try {
    ok = withPatternBudget(() => compiled.validate(value) === true);
  } catch (err) {
    if (err instanceof PatternBudgetExceeded) {
      throw badInput(
        `the strings to match against the schema's patterns are too long (limit: ${PATTERN_WORK_MAX} characters × compiled pattern size, in total)`,
        fieldRoot,
      );
    }
    throw badInput('value cannot be validated against the schema', fieldRoot);
  }
  if (ok) return;
  const first = compiled.validate.errors?.[0];
  if (!first) throw badInput('value does not match the schema', fieldRoot);
  let field: string;
  try {
    field = fieldOf(first, value, fieldRoot);
  } catch {
    field = fieldRoot;
  }
  const failed = formatBeforePattern(compiled, first, value) ?? whatFailed(first);
  throw badInput(`${clip(field, MESSAGE_MAX)} ${failed}`, field);
}

/** The value at an Ajv instance path, or undefined when the path leaves it. */
function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const seg of decodePointer(pointer)) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(seg)) node = node[Number(seg)];
    else if (isPlainObject(node) && Object.hasOwn(node, seg)) node = node[seg];
    else return undefined;
  }
  return node;
}

/**
 * Ajv checks `pattern` before `format`, so a field with both fails on the regular expression
 * first: "must match pattern "^[^@]+@example\.com$"" says less to a person than "must be an email
 * address". When the field's format also fails, that is the error named. Only a sibling `format`
 * reached by a local path is looked at; anything else keeps Ajv's first error.
 */
function formatBeforePattern(compiled: CompiledSchema, error: ErrorObject, value: unknown): string | null {
  if (error.keyword !== 'pattern' || !error.schemaPath.startsWith('#/')) return null;
  const at = valueAt(compiled.schema, error.schemaPath.slice(1).replace(/\/pattern$/, ''));
  if (!isPlainObject(at) || typeof at.format !== 'string') return null;
  const check = slots[compiled.draft].ajv?.formats[at.format];
  const v = valueAt(value, error.instancePath);
  if (typeof v !== 'string' || check === undefined || check === true) return null;
  // A format is a RegExp, a function, or a definition holding one of those (ajv-formats' shapes).
  const def = (typeof check === 'object' && !(check instanceof RegExp) ? check.validate : check) as unknown;
  let ok: unknown;
  try {
    ok = def instanceof RegExp ? def.test(v) : typeof def === 'function' ? def(v) : true;
  } catch {
    return null;
  }
  return ok === false ? `must be ${formatWords(at.format)}` : null;
}

/** Ajv's complaint in our words; an enum or const refusal lists what the schema allows. */
function whatFailed(error: ErrorObject): string {
  const params = error.params as { allowedValues?: unknown; allowedValue?: unknown };
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `must be one of: ${listChoices(params.allowedValues)}`;
  }
  if (error.keyword === 'const') return `must be ${listChoices([params.allowedValue])}`;
  if (error.keyword === 'format' && typeof (error.params as { format?: unknown }).format === 'string') {
    return `must be ${formatWords((error.params as { format: string }).format)}`;
  }
  return clip(error.message ?? 'is invalid', MESSAGE_MAX);
}

/** Re-throws anything that is not a DomainError as BAD_USER_INPUT at `field`. */
export function asBadInput(err: unknown, field: string): DomainError {
  return isDomainError(err) ? err : badInput('invalid input', field);
}
