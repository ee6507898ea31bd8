// Assertions about domain errors, shared by the unit and engine suites.
import { expect } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';

/** The DomainError `fn` throws (fails the test if it throws nothing or something else). */
export function caught(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

/** `fn` is refused with BAD_USER_INPUT at `field`. */
export function expectBad(fn: () => unknown, field: string): void {
  const err = caught(fn);
  expect(err.code).toBe('BAD_USER_INPUT');
  expect(err.field).toBe(field);
}

/** 'OK', or the code of the DomainError the promise rejects with (anything else fails). */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
}
