// Custom scalars (API.md §4): DateTime (RFC 3339, UTC), JSON (any JSON value) and JSONObject.
import { isPlainObject } from '../domain/json-schema.ts';
import { builder } from './builder.ts';
import { GraphQLError, Kind, type ValueNode, valueFromASTUntyped } from './graphql-js.ts';

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** An RFC 3339 date-time with an offset, checked field by field (no 30 February), as a Date. */
export function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string') throw badInput('DateTime must be an RFC 3339 string');
  const m = RFC3339.exec(value);
  if (!m) throw badInput('DateTime must be an RFC 3339 date-time, e.g. 2025-01-31T12:00:00Z');
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  const valid =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  const date = new Date(value);
  if (!valid || Number.isNaN(date.getTime())) throw badInput('DateTime is not a valid date-time');
  return date;
}

/** Epoch milliseconds or a Date, rendered as RFC 3339 in UTC. */
export function serializeDateTime(value: unknown): string {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw new GraphQLError('DateTime cannot represent a value that is not a time');
  }
  return new Date(ms).toISOString();
}

export const DateTime = builder.scalarType('DateTime', {
  description: 'A point in time, as an RFC 3339 date-time string in UTC, e.g. `2025-01-31T12:00:00.000Z`.',
  serialize: serializeDateTime,
  parseValue: parseDateTime,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw badInput('DateTime must be an RFC 3339 string');
    return parseDateTime(ast.value);
  },
});

export const JSONScalar = builder.scalarType('JSON', {
  description: 'Any JSON value: an object, array, string, number, boolean or null.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast: ValueNode, variables) => valueFromASTUntyped(ast, variables ?? undefined),
});

function jsonObject(value: unknown): Record<string, unknown> {
  if (!isPlainObject(value)) throw badInput('JSONObject must be a JSON object');
  return value;
}

export const JSONObjectScalar = builder.scalarType('JSONObject', {
  description: 'A JSON object (not an array, string, number, boolean or null).',
  serialize: (value) => {
    if (!isPlainObject(value))
      throw new GraphQLError('JSONObject cannot represent a value that is not an object');
    return value;
  },
  parseValue: jsonObject,
  parseLiteral: (ast, variables) => {
    if (ast.kind !== Kind.OBJECT) throw badInput('JSONObject must be a JSON object');
    return jsonObject(valueFromASTUntyped(ast, variables ?? undefined));
  },
});
