// The validator react-jsonschema-form uses, over @cfworker/json-schema: it interprets schemas
// (drafts 7 and 2020-12) and never generates code, so it runs under a CSP without 'unsafe-eval'
// (Ajv compiles validators with `new Function`). The server stays the authority: it validates
// every answer with Ajv and its errors are mapped back onto the form (`serverErrorSchema`).
//
// `pattern` is not checked here: a caller's pattern run by the browser's backtracking engine could
// freeze the page (`^(a+)+$`), while the server checks it in linear time (RE2) and its error lands
// on the field.

import {
  validate as cfValidate,
  dereference,
  type OutputUnit,
  type Schema,
  type SchemaDraft,
} from '@cfworker/json-schema';
import {
  type CustomValidator,
  createErrorHandler,
  type ErrorSchema,
  ErrorSchemaBuilder,
  type ErrorTransformer,
  type FormContextType,
  type RJSFSchema,
  type RJSFValidationError,
  ROOT_SCHEMA_PREFIX,
  type UiSchema,
  unwrapErrorHandler,
  type ValidationData,
  type ValidatorType,
  validationDataMerge,
  withIdRefPrefix,
} from '@rjsf/utils';
import { formatWords } from '../../domain/format-words.ts';
import { answerPath, serverMessage } from './answer-path.ts';
import { isPlainObject } from './model.ts';

type Json = unknown;
type Lookup = Record<string, Schema | boolean>;

const DRAFT_07 = new Set([
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-07/schema',
]);

/** The draft the server uses for this schema: draft-07 when `$schema` names it, else 2020-12. */
export function draftOf(schema: unknown): SchemaDraft {
  return isPlainObject(schema) && typeof schema.$schema === 'string' && DRAFT_07.has(schema.$schema)
    ? '7'
    : '2020-12';
}

// Keywords whose value is a schema, a list of schemas, or a map of schemas (drafts 7 to 2020-12).
const ONE_SCHEMA = new Set([
  'additionalItems',
  'unevaluatedItems',
  'items',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);
const SCHEMA_LIST = new Set(['prefixItems', 'items', 'allOf', 'anyOf', 'oneOf']);
const SCHEMA_MAP = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas']);

/** A private, plain-JSON copy of a schema without its `pattern` keywords. */
export function browserSafeSchema(schema: unknown): Json {
  const copy: Json = JSON.parse(JSON.stringify(schema ?? {}));
  const walk = (node: Json): void => {
    if (!isPlainObject(node)) return;
    if (typeof node.pattern === 'string') delete node.pattern;
    for (const [key, value] of Object.entries(node)) {
      if (SCHEMA_LIST.has(key) && Array.isArray(value)) value.forEach(walk);
      else if (SCHEMA_MAP.has(key) && isPlainObject(value)) Object.values(value).forEach(walk);
      else if (ONE_SCHEMA.has(key)) walk(value);
      else if (key === 'dependencies' && isPlainObject(value)) Object.values(value).forEach(walk);
    }
  };
  walk(copy);
  return copy;
}

/** Form data as it would travel: JSON (undefined members dropped); undefined itself is null. */
function asJson(data: unknown): Json {
  if (data === undefined) return null;
  return JSON.parse(JSON.stringify(data)) as Json;
}

interface Prepared {
  schema: Schema | boolean;
  draft: SchemaDraft;
  lookup: Lookup;
}

const ROOT_ID = ROOT_SCHEMA_PREFIX;

/** The root schema registered under rjsf's root id, so `withIdRefPrefix`ed sub-schemas resolve. */
function prepareRoot(root: unknown): Prepared {
  const copy = browserSafeSchema(root);
  const schema = (isPlainObject(copy) ? { ...copy, $id: ROOT_ID } : copy) as Schema | boolean;
  const lookup = dereference(schema as Schema) as Lookup;
  return { schema, draft: draftOf(root), lookup };
}

// ---------------------------------------------------------------------------------------------
// Errors: cfworker's output units → rjsf errors with plain-English messages on the right field.

/** Keywords that only say "something below failed": their nested errors say what. */
const CONTAINERS = new Set([
  '$ref',
  '$recursiveRef',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'allOf',
  'if',
  'dependentSchemas',
  'propertyNames',
]);
/** Keywords whose nested errors describe alternatives the person did not choose. */
const ALTERNATIVES = new Set(['anyOf', 'oneOf', 'not']);

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'empty',
};

function numbers(text: string): string[] {
  return text.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi) ?? [];
}

function last<T>(list: readonly T[]): T | undefined {
  return list[list.length - 1];
}

/** A short, plain-English message for one failed keyword. */
function messageFor(unit: OutputUnit): string {
  const n = last(numbers(unit.error));
  switch (unit.keyword) {
    case 'required':
      return 'This field is required.';
    case 'type': {
      const expected = /Expected "(.*)"\.$/.exec(unit.error)?.[1] ?? '';
      const words = expected
        .split('", "')
        .map((t) => TYPE_WORDS[t] ?? t)
        .join(' or ');
      return `Must be ${words}.`;
    }
    case 'minLength':
      return `Must be at least ${n} character${n === '1' ? '' : 's'}.`;
    case 'maxLength':
      return `Must be at most ${n} character${n === '1' ? '' : 's'}.`;
    case 'format': {
      const format = /format "(.*)"\.$/.exec(unit.error)?.[1] ?? '';
      return `Must be ${formatWords(format)}.`;
    }
    case 'minimum':
      return unit.error.includes('or equal to') ? `Must be greater than ${n}.` : `Must be at least ${n}.`;
    case 'maximum':
      return unit.error.includes('or equal to') ? `Must be less than ${n}.` : `Must be at most ${n}.`;
    case 'exclusiveMinimum':
      return `Must be greater than ${n}.`;
    case 'exclusiveMaximum':
      return `Must be less than ${n}.`;
    case 'multipleOf':
      return `Must be a multiple of ${n}.`;
    case 'enum':
      return 'Must be one of the allowed values.';
    case 'const':
      return 'Must be the required value.';
    case 'minItems':
      return `Needs at least ${n} item${n === '1' ? '' : 's'}.`;
    case 'maxItems':
      return `Allows at most ${n} item${n === '1' ? '' : 's'}.`;
    case 'uniqueItems':
      return 'Items must all be different.';
    case 'minProperties':
      return `Needs at least ${n} entr${n === '1' ? 'y' : 'ies'}.`;
    case 'maxProperties':
      return `Allows at most ${n} entr${n === '1' ? 'y' : 'ies'}.`;
    case 'anyOf':
    case 'oneOf':
      return 'Must match one of the allowed choices.';
    case 'not':
      return 'This value is not allowed.';
    case 'false':
      return 'This field is not allowed.';
    case 'contains':
    case 'minContains':
    case 'maxContains':
      return 'Does not contain the required items.';
    case 'dependentRequired':
    case 'dependencies':
      return 'This field is required.';
    default:
      return 'Is not valid.';
  }
}

function decodePointer(location: string): string[] {
  const pointer = location.startsWith('#') ? location.slice(1) : location;
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Where an error belongs: the instance location, plus the missing key for `required`-like ones. */
function pathOf(unit: OutputUnit): string[] {
  const path = decodePointer(unit.instanceLocation);
  if (unit.keyword === 'required') {
    const key = /required property "(.*)"\.$/.exec(unit.error)?.[1];
    if (key !== undefined) path.push(key);
  } else if (unit.keyword === 'dependentRequired' || unit.keyword === 'dependencies') {
    const key = /does not have "(.*)"\.$/.exec(unit.error)?.[1];
    if (key !== undefined) path.push(key);
  }
  return path;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$|^\d+$/;

/** rjsf's dotted notation for display: `.a.b`, `.items.0`, `['odd key']`. */
export function propertyOf(path: readonly string[]): string {
  return path.map((seg) => (IDENTIFIER.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`)).join('') || '.';
}

export interface PathedError extends RJSFValidationError {
  /** The segments of `property`, for building the error schema without re-parsing it. */
  path: string[];
}

/** The errors worth showing, from the full (not short-circuited) cfworker output. */
export function toFormErrors(units: readonly OutputUnit[]): PathedError[] {
  const muted: string[] = [];
  const out: PathedError[] = [];
  const seen = new Set<string>();
  for (const unit of units) {
    if (muted.some((prefix) => unit.keywordLocation.startsWith(prefix))) continue;
    if (ALTERNATIVES.has(unit.keyword)) muted.push(`${unit.keywordLocation}/`);
    if (CONTAINERS.has(unit.keyword)) continue;
    const path = pathOf(unit);
    const message = messageFor(unit);
    const property = propertyOf(path);
    const dedupe = `${property}\u0000${message}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    out.push({
      name: unit.keyword,
      message,
      property,
      path,
      schemaPath: unit.keywordLocation,
      stack: `${property === '.' ? '' : `${property.replace(/^\./, '')} `}${message}`,
    });
  }
  return out;
}

function errorSchemaOf(errors: readonly RJSFValidationError[]): ErrorSchema {
  const builder = new ErrorSchemaBuilder();
  for (const e of errors) {
    if (!e.message) continue;
    const path = 'path' in e && Array.isArray(e.path) ? (e.path as string[]) : [];
    builder.addErrors(e.message, path);
  }
  return builder.ErrorSchema;
}

// ---------------------------------------------------------------------------------------------

export type CfworkerValidator = ValidatorType<Json, RJSFSchema, FormContextType>;

export function createCfworkerValidator(): CfworkerValidator {
  const roots = new WeakMap<object, Prepared>();

  function rootOf(schema: RJSFSchema): Prepared {
    let prepared = roots.get(schema);
    if (!prepared) {
      prepared = prepareRoot(schema);
      roots.set(schema, prepared);
    }
    return prepared;
  }

  function run(schema: RJSFSchema, formData: unknown): OutputUnit[] {
    const root = rootOf(schema);
    return cfValidate(asJson(formData), root.schema, root.draft, root.lookup, false).errors;
  }

  const validator: CfworkerValidator = {
    validateFormData(
      formData: Json | undefined,
      schema: RJSFSchema,
      customValidate?: CustomValidator<Json, RJSFSchema, FormContextType>,
      transformErrors?: ErrorTransformer<Json, RJSFSchema, FormContextType>,
      uiSchema?: UiSchema<Json, RJSFSchema, FormContextType>,
    ): ValidationData<Json> {
      let errors: RJSFValidationError[];
      try {
        errors = toFormErrors(run(schema, formData));
      } catch (err) {
        const message = `The form cannot be checked here: ${err instanceof Error ? err.message.split('\n')[0] : 'invalid schema'}`;
        errors = [{ name: 'schema', message, property: '.', stack: message, path: [] } as PathedError];
      }
      if (typeof transformErrors === 'function') errors = transformErrors(errors, uiSchema);
      const errorSchema = errorSchemaOf(errors);
      if (typeof customValidate !== 'function') return { errors, errorSchema };
      const handler = customValidate(formData, createErrorHandler(formData), uiSchema, errorSchema);
      return validationDataMerge({ errors, errorSchema }, unwrapErrorHandler(handler));
    },

    isValid(schema: RJSFSchema, formData: Json | undefined, rootSchema: RJSFSchema): boolean {
      try {
        const root = rootOf(rootSchema);
        const lookup: Lookup = Object.assign(Object.create(null), root.lookup);
        const sub = browserSafeSchema(withIdRefPrefix(schema)) as Schema | boolean;
        if (typeof sub === 'object') dereference(sub, lookup);
        return cfValidate(asJson(formData), sub, root.draft, lookup, true).valid;
      } catch {
        return false;
      }
    },

    rawValidation<Result = OutputUnit>(
      schema: RJSFSchema,
      formData?: Json,
    ): { errors?: Result[]; validationError?: Error } {
      try {
        return { errors: run(schema, formData) as Result[] };
      } catch (err) {
        return { validationError: err instanceof Error ? err : new Error(String(err)) };
      }
    },
  };
  return validator;
}

// ---------------------------------------------------------------------------------------------

/**
 * The rjsf `extraErrors` that put a server error on its field (the form root when it has none).
 * `under` is where the form's data sits in the answer: an approval's edit form holds
 * `answer.arguments`, so `answer.arguments.amount` is its field `amount`.
 */
export function serverErrorSchema(message: string, field: string | undefined, under?: string): ErrorSchema {
  let path = answerPath(field) ?? [];
  if (under !== undefined) path = path[0] === under ? path.slice(1) : [];
  return new ErrorSchemaBuilder().addErrors(serverMessage(message, field), path).ErrorSchema;
}
