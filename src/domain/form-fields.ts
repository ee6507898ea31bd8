// Values that arrive as text — the callback form page's fields (channel FORM questions), and the
// query parameters of an EXTERNAL callback with an empty body — are turned into the JSON the
// question's schema expects before the answer is validated, so `?signed=true` can satisfy
// `{"const": true}`. A property's `type` decides (numbers and integers from numeric text,
// booleans from "true"/"false"); without one, a `const` or `enum` value that the text spells
// is taken. Anything else stays the text it was, for the schema to judge. Blank form fields
// are omitted.
import { badInput } from './errors.ts';
import type { JsonObject } from './question.ts';

/** How many `&`-separated parameters a form body holds, counted on the bytes (no parsing). */
export function formParamCount(raw: Uint8Array): number {
  if (raw.length === 0) return 0;
  let count = 1;
  for (let i = raw.indexOf(0x26); i !== -1; i = raw.indexOf(0x26, i + 1)) count++;
  return count;
}

function propertiesOf(schema: JsonObject): Record<string, JsonObject> {
  const props = schema.properties;
  return props && typeof props === 'object' && !Array.isArray(props)
    ? (props as Record<string, JsonObject>)
    : {};
}

function typeOf(prop: JsonObject | undefined): string | undefined {
  const t = prop?.type;
  return typeof t === 'string'
    ? t
    : Array.isArray(t)
      ? (t.find((x) => x !== 'null') as string | undefined)
      : undefined;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const NUMERIC = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** The values a property allows by `const` or `enum`, when it lists them. */
function allowedOf(prop: JsonObject | undefined): readonly unknown[] {
  if (prop === undefined) return [];
  if (Object.hasOwn(prop, 'const')) return [prop.const];
  return Array.isArray(prop.enum) ? prop.enum : [];
}

function coerce(value: string, prop: JsonObject | undefined): unknown {
  const type = typeOf(prop);
  if ((type === 'number' || type === 'integer') && NUMERIC.test(value.trim())) return Number(value.trim());
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (type === undefined) {
    const allowed = allowedOf(prop);
    // The text itself is allowed: keep it. Otherwise a boolean or number it spells exactly.
    if (allowed.includes(value)) return value;
    const spelled = allowed.find(
      (a) => (typeof a === 'boolean' || typeof a === 'number') && String(a) === value,
    );
    if (spelled !== undefined) return spelled;
  }
  return value;
}

/** One value, or a repeated one (a list), coerced by its property. */
function coerceEntry(value: string | readonly string[], prop: JsonObject | undefined): unknown {
  if (typeof value === 'string') return coerce(value, prop);
  const items = prop?.items;
  return value.map((v) => coerce(v, isObject(items) ? items : undefined));
}

/** Sets an own property: a name such as `__proto__` must become a field like any other. */
function define(out: JsonObject, name: string, value: unknown): void {
  Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
}

function propertyOf(props: Record<string, JsonObject>, name: string): JsonObject | undefined {
  return Object.hasOwn(props, name) ? props[name] : undefined;
}

/**
 * The form page has one field per property of the schema (and per required name the properties
 * leave out), so a post with more fields than that is refused before it is parsed: thousands of
 * tiny fields would cost far more to convert and check than the size cap suggests.
 */
export function checkFormFieldCount(schema: JsonObject, raw: Uint8Array): void {
  const names = new Set(Object.keys(propertiesOf(schema)));
  if (Array.isArray(schema.required))
    for (const r of schema.required) if (typeof r === 'string') names.add(r);
  const most = Math.max(1, names.size);
  if (formParamCount(raw) > most) {
    throw badInput(`the form has more fields than the question's ${most}`, 'answer');
  }
}

/** The form page's fields as JSON: blank fields omitted, a repeated field's first value kept. */
export function formFieldsToJson(schema: JsonObject, form: URLSearchParams): JsonObject {
  const props = propertiesOf(schema);
  const out: JsonObject = {};
  for (const [name, value] of form) {
    if (value === '' || Object.hasOwn(out, name)) continue;
    define(out, name, coerce(value, propertyOf(props, name)));
  }
  return out;
}

/**
 * An EXTERNAL callback's query parameters as JSON, coerced by the question's schema (none: the
 * strings as they came). A repeated key is a list, each item coerced by the property's `items`.
 */
export function queryToJson(
  schema: JsonObject | null,
  query: Readonly<Record<string, string | readonly string[]>>,
): JsonObject {
  const props = schema ? propertiesOf(schema) : {};
  const out: JsonObject = {};
  for (const name of Object.keys(query)) {
    const value = query[name];
    if (value === undefined) continue;
    define(out, name, schema ? coerceEntry(value, propertyOf(props, name)) : value);
  }
  return out;
}
