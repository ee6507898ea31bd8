// The callback form page (channel FORM questions) posts an HTML form, so its fields arrive as
// strings. They are turned into the JSON the schema expects before the answer is validated:
// numbers and integers from numeric text, booleans from "true"/"false", blank fields omitted.
import type { JsonObject } from './question.ts';

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
