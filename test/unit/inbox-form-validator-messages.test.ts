// The form validator reads @cfworker/json-schema's English messages (the numbers, the quoted type,
// format and property names). That wording is not an API, so the dependency is pinned exactly and
// each keyword is checked here twice: the library's own sentence (an upgrade that rewords one
// fails on that line), and the plain words and field the form shows for it.

import { Validator } from '@cfworker/json-schema';
import type { RJSFSchema } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { createCfworkerValidator } from '../../src/inbox/lib/form-validator.ts';

const validator = createCfworkerValidator();

type Case = [keyword: string, field: RJSFSchema, value: unknown, library: string, shown: string];

// One field `f` per case; `required` and the dependencies keywords name the missing field `g`.
const CASES: Case[] = [
  [
    'type',
    { type: 'integer' },
    'x',
    'Instance type "string" is invalid. Expected "integer".',
    'Must be a whole number.',
  ],
  [
    'type',
    { type: ['integer', 'null'] },
    'x',
    'Instance type "string" is invalid. Expected "integer", "null".',
    'Must be a whole number or empty.',
  ],
  [
    'minLength',
    { type: 'string', minLength: 3 },
    'a',
    'String is too short (1 < 3).',
    'Must be at least 3 characters.',
  ],
  [
    'minLength',
    { type: 'string', minLength: 1 },
    '',
    'String is too short (0 < 1).',
    'Must be at least 1 character.',
  ],
  [
    'maxLength',
    { type: 'string', maxLength: 12 },
    'x'.repeat(13),
    'String is too long (13 > 12).',
    'Must be at most 12 characters.',
  ],
  [
    'format',
    { type: 'string', format: 'email' },
    'x',
    'String does not match format "email".',
    'Must be an email address.',
  ],
  [
    'format',
    { type: 'string', format: 'date' },
    'x',
    'String does not match format "date".',
    'Must be a date (YYYY-MM-DD).',
  ],
  ['minimum', { type: 'number', minimum: 7 }, 3, '3 is less than 7.', 'Must be at least 7.'],
  ['minimum', { type: 'number', minimum: -2.5 }, -10, '-10 is less than -2.5.', 'Must be at least -2.5.'],
  ['maximum', { type: 'number', maximum: 7 }, 900, '900 is greater than 7.', 'Must be at most 7.'],
  [
    'exclusiveMinimum',
    { type: 'number', exclusiveMinimum: 7 },
    7,
    '7 is less than 7.',
    'Must be greater than 7.',
  ],
  [
    'exclusiveMaximum',
    { type: 'number', exclusiveMaximum: 7 },
    7,
    '7 is greater than or equal to 7.',
    'Must be less than 7.',
  ],
  [
    'multipleOf',
    { type: 'number', multipleOf: 2.5 },
    3,
    '3 is not a multiple of 2.5.',
    'Must be a multiple of 2.5.',
  ],
  [
    'enum',
    { enum: ['a', 'b'] },
    'c',
    'Instance does not match any of ["a","b"].',
    'Must be one of the allowed values.',
  ],
  ['const', { const: 'a' }, 'b', 'Instance does not match "a".', 'Must be the required value.'],
  [
    'minItems',
    { type: 'array', minItems: 3 },
    [1],
    'Array has too few items (1 < 3).',
    'Needs at least 3 items.',
  ],
  [
    'maxItems',
    { type: 'array', maxItems: 1 },
    [1, 2],
    'Array has too many items (2 > 1).',
    'Allows at most 1 item.',
  ],
  [
    'uniqueItems',
    { type: 'array', uniqueItems: true },
    [1, 1],
    'Duplicate items at indexes 0 and 1.',
    'Items must all be different.',
  ],
  [
    'minProperties',
    { type: 'object', minProperties: 3 },
    {},
    'Instance does not have at least 3 properties.',
    'Needs at least 3 entries.',
  ],
  [
    'maxProperties',
    { type: 'object', maxProperties: 1 },
    { a: 1, b: 2 },
    'Instance does not have at least 1 properties.',
    'Allows at most 1 entry.',
  ],
  [
    'anyOf',
    { anyOf: [{ type: 'string' }, { type: 'boolean' }] },
    1,
    'Instance does not match any subschemas.',
    'Must match one of the allowed choices.',
  ],
  [
    'oneOf',
    { oneOf: [{ type: 'string' }] },
    1,
    'Instance does not match exactly one subschema (0 matches).',
    'Must match one of the allowed choices.',
  ],
  ['not', { not: { type: 'string' } }, 'a', 'Instance matched "not" schema.', 'This value is not allowed.'],
  [
    'contains',
    { type: 'array', contains: { type: 'string' } },
    [1],
    'Array does not contain item matching schema.',
    'Does not contain the required items.',
  ],
  [
    'minContains',
    { type: 'array', contains: { type: 'string' }, minContains: 2 },
    ['a'],
    'Array has less items (1) than minContains (2).',
    'Does not contain the required items.',
  ],
  [
    'maxContains',
    { type: 'array', contains: { type: 'string' }, maxContains: 1 },
    ['a', 'b'],
    'Array may contain at most 1 items matching schema. 2 items were found.',
    'Does not contain the required items.',
  ],
];

describe('@cfworker/json-schema messages the form reads', () => {
  it('is pinned to an exact version', () => {
    expect(pkg.dependencies['@cfworker/json-schema']).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each(CASES)('%s: %j', (keyword, field, value, library, shown) => {
    const raw = new Validator(field as never, '2020-12', false).validate(value);
    expect(raw.errors.find((e) => e.keyword === keyword)?.error).toBe(library);
    const schema: RJSFSchema = { type: 'object', properties: { f: field } };
    const errors = validator.validateFormData({ f: value }, schema).errors;
    expect(errors.map((e) => [e.property, e.message])).toContainEqual(['.f', shown]);
  });

  it('false: a field the schema forbids', () => {
    const schema: RJSFSchema = { type: 'object', properties: { f: false } };
    expect(new Validator(schema as never, '2020-12', false).validate({ f: 1 }).errors.at(-1)?.error).toBe(
      'False boolean schema.',
    );
    expect(validator.validateFormData({ f: 1 }, schema).errors.map((e) => [e.property, e.message])).toEqual([
      ['.f', 'This field is not allowed.'],
    ]);
  });

  it.each([
    ['required', { type: 'object', required: ['g'] }, 'Instance does not have required property "g".'],
    [
      'dependentRequired',
      { type: 'object', dependentRequired: { f: ['g'] } },
      'Instance has "f" but does not have "g".',
    ],
    [
      'dependencies',
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', dependencies: { f: ['g'] } },
      'Instance has "f" but does not have "g".',
    ],
  ] as const)('%s: the missing property named in the message gets the error', (keyword, schema, library) => {
    const draft = keyword === 'dependencies' ? '7' : '2020-12';
    const raw = new Validator(schema as never, draft, false).validate({ f: 1 });
    expect(raw.errors.find((e) => e.keyword === keyword)?.error).toBe(library);
    const errors = validator.validateFormData({ f: 1 }, schema as RJSFSchema).errors;
    expect(errors.map((e) => [e.property, e.message])).toEqual([['.g', 'This field is required.']]);
  });
});
