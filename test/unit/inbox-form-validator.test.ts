// The rjsf validator over @cfworker/json-schema: plain-English errors on the right fields,
// drafts 7 and 2020-12, $refs resolved against the root for rjsf's option matching, rjsf's own
// hooks (transformErrors, customValidate), and server errors mapped onto form fields.
import type { RJSFSchema } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { answerPath, serverMessage } from '../../src/inbox/lib/answer-path.ts';
import {
  browserSafeSchema,
  createCfworkerValidator,
  draftOf,
  propertyOf,
  serverErrorSchema,
} from '../../src/inbox/lib/form-validator.ts';

const validator = createCfworkerValidator();

const CONTACT: RJSFSchema = {
  type: 'object',
  required: ['name', 'email'],
  properties: {
    name: { type: 'string', minLength: 2 },
    email: { type: 'string', format: 'email' },
    seats: { type: 'integer', minimum: 1, maximum: 100 },
    plan: { type: 'string', enum: ['Starter', 'Team'] },
    address: {
      type: 'object',
      required: ['city'],
      properties: { city: { type: 'string' }, zip: { type: 'string', maxLength: 5 } },
    },
    tags: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 2 },
    'odd key': { type: 'boolean' },
  },
};

function errorsOf(data: unknown, schema: RJSFSchema = CONTACT) {
  return validator.validateFormData(data, schema).errors.map((e) => [e.property, e.message]);
}

describe('validateFormData', () => {
  it('accepts valid data', () => {
    expect(errorsOf({ name: 'Ada', email: 'ada@example.com', seats: 3, tags: ['a'] })).toEqual([]);
  });

  it('puts each error on its field in plain words', () => {
    expect(
      errorsOf({
        name: 'A',
        email: 'nope',
        seats: 0,
        plan: 'Gold',
        address: { zip: '1234567' },
        tags: ['', 'b', 'c'],
        'odd key': 'yes',
      }),
    ).toEqual([
      ['.name', 'Must be at least 2 characters.'],
      ['.email', 'Must be an email address.'],
      ['.seats', 'Must be at least 1.'],
      ['.plan', 'Must be one of the allowed values.'],
      ['.address.city', 'This field is required.'],
      ['.address.zip', 'Must be at most 5 characters.'],
      ['.tags', 'Allows at most 2 items.'],
      ['.tags.0', 'Must be at least 1 character.'],
      ['["odd key"]', 'Must be true or false.'],
    ]);
  });

  it('names a missing required field, not its parent', () => {
    const result = validator.validateFormData({}, CONTACT);
    expect(result.errors.map((e) => e.property)).toEqual(['.name', '.email']);
    expect(result.errorSchema).toEqual({
      name: { __errors: ['This field is required.'] },
      email: { __errors: ['This field is required.'] },
    });
  });

  it('says "one of the choices" for anyOf/oneOf instead of every branch', () => {
    const schema: RJSFSchema = {
      type: 'object',
      properties: { v: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
    };
    expect(errorsOf({ v: true }, schema)).toEqual([['.v', 'Must match one of the allowed choices.']]);
  });

  it('treats undefined members as absent, like the JSON that is sent', () => {
    expect(errorsOf({ name: 'Ada', email: 'ada@example.com', seats: undefined })).toEqual([]);
  });

  it('follows $ref and $defs (2020-12) and definitions (draft-07)', () => {
    const modern: RJSFSchema = {
      type: 'object',
      properties: { when: { $ref: '#/$defs/day' } },
      $defs: { day: { type: 'string', format: 'date' } },
    };
    expect(errorsOf({ when: '2025-13-99' }, modern)).toEqual([['.when', 'Must be a date (YYYY-MM-DD).']]);
    const old: RJSFSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { $ref: '#/definitions/small' } },
      definitions: { small: { type: 'integer', exclusiveMaximum: 10 } },
    };
    expect(errorsOf({ n: 10 }, old)).toEqual([['.n', 'Must be less than 10.']]);
  });

  it('runs transformErrors and customValidate as rjsf expects', () => {
    const result = validator.validateFormData(
      { name: 'A', email: 'a@b.co' },
      CONTACT,
      (data, errors) => {
        const fields = errors as unknown as Record<string, { addError(message: string): void } | undefined>;
        if ((data as { email?: string }).email?.endsWith('.co'))
          fields.email?.addError('Use a .com address.');
        return errors;
      },
      (errors) => errors.map((e) => ({ ...e, message: `! ${e.message}` })),
    );
    expect(result.errorSchema).toMatchObject({
      name: { __errors: ['! Must be at least 2 characters.'] },
      email: { __errors: ['Use a .com address.'] },
    });
  });

  it('does not check `pattern` in the page (the server does, in linear time)', () => {
    const schema: RJSFSchema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    expect(errorsOf({ s: `${'a'.repeat(40)}!` }, schema)).toEqual([]);
    expect(browserSafeSchema({ properties: { pattern: { type: 'string', pattern: 'x' } } })).toEqual({
      properties: { pattern: { type: 'string' } },
    });
  });

  it('reports a schema it cannot use on the form rather than throwing', () => {
    const result = validator.validateFormData(
      { a: 1 },
      { type: 'object', properties: { a: { $ref: '#/nowhere' } } },
    );
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.message).toMatch(/^The form cannot be checked here/);
  });
});

describe('isValid and rawValidation', () => {
  const root: RJSFSchema = {
    type: 'object',
    definitions: { pos: { type: 'integer', minimum: 1 } },
    properties: { n: { anyOf: [{ $ref: '#/definitions/pos' }, { type: 'string' }] } },
  };

  it('checks a sub-schema whose $refs point into the root', () => {
    expect(validator.isValid({ $ref: '#/definitions/pos' }, 3, root)).toBe(true);
    expect(validator.isValid({ $ref: '#/definitions/pos' }, 0, root)).toBe(false);
    expect(validator.isValid({ type: 'string' }, 'x', root)).toBe(true);
    expect(validator.isValid({ $ref: '#/definitions/missing' }, 1, root)).toBe(false);
  });

  it('returns the raw output units', () => {
    const raw = validator.rawValidation(root, { n: 0 });
    expect(raw.validationError).toBeUndefined();
    expect(raw.errors?.length).toBeGreaterThan(0);
  });
});

describe('drafts and paths', () => {
  it('uses draft-07 only when $schema names it', () => {
    expect(draftOf({ $schema: 'http://json-schema.org/draft-07/schema#' })).toBe('7');
    expect(draftOf({ $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe('2020-12');
    expect(draftOf({})).toBe('2020-12');
  });

  it('writes rjsf properties for identifiers, indexes and odd keys', () => {
    expect(propertyOf([])).toBe('.');
    expect(propertyOf(['a', 'b', '0'])).toBe('.a.b.0');
    expect(propertyOf(['a b', 'x"y'])).toBe('["a b"]["x\\"y"]');
  });
});

describe('server errors on the form', () => {
  it('reads the field under `answer`', () => {
    expect(answerPath('answer')).toEqual([]);
    expect(answerPath('answer.email')).toEqual(['email']);
    expect(answerPath('answer.a.b')).toEqual(['a', 'b']);
    expect(answerPath('answer.items[2].name')).toEqual(['items', '2', 'name']);
    expect(answerPath('answer["odd key"]')).toEqual(['odd key']);
    expect(answerPath('input.text')).toBeNull();
    expect(answerPath('answers.x')).toBeNull();
    expect(answerPath(undefined)).toBeNull();
  });

  it('drops the field name from the message', () => {
    expect(serverMessage('answer.code must match pattern "^x$"', 'answer.code')).toBe(
      'Must match pattern "^x$"',
    );
    expect(serverMessage('answer must be a JSON object', 'answer')).toBe('Must be a JSON object');
  });

  it('builds rjsf extraErrors on the field, or on the form when it names none', () => {
    expect(serverErrorSchema('answer.a.b is required', 'answer.a.b')).toEqual({
      a: { b: { __errors: ['Is required'] } },
    });
    expect(serverErrorSchema('invalid answer', 'answer')).toEqual({ __errors: ['Invalid answer'] });
  });
});
