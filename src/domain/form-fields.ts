// The callback form page (channel FORM questions) posts an HTML form, so its fields arrive as
// strings. They are turned into the JSON the schema expects before the answer is validated:
// numbers and integers from numeric text, booleans from "true"/"false", blank fields omitted.
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

function coerce(value: string, type: string | undefined): unknown {
  if ((type === 'number' || type === 'integer') && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value.trim())) {
    return Number(value.trim());
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * The form page has one field per property of the schema, so a post with more fields than that
 * is refused before it is parsed: thousands of tiny fields would cost far more to convert and
 * check than the size cap suggests.
 */
export function checkFormFieldCount(schema: JsonObject, raw: Uint8Array): void {
  const most = Math.max(1, Object.keys(propertiesOf(schema)).length);
  if (formParamCount(raw) > most) {
    throw badInput(`the form has more fields than the question's ${most}`, 'answer');
  }
}

export function formFieldsToJson(schema: JsonObject, form: URLSearchParams): JsonObject {
  const props = propertiesOf(schema);
  const out: JsonObject = {};
  for (const [name, value] of form) {
    if (value === '' || Object.hasOwn(out, name)) continue;
    // Defined, not assigned: a field named `__proto__` must become an own property like any other.
    Object.defineProperty(out, name, {
      value: coerce(value, typeOf(Object.hasOwn(props, name) ? props[name] : undefined)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
