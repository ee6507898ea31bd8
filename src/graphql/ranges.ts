// Argument ranges checked by the validation plugin before a resolver runs (the engine checks
// them again; these give the same BAD_USER_INPUT earlier, with the argument's path as `field`).
import { z } from 'zod';
import { HOLD_MAX_SECONDS, PAGE_MAX } from '../domain/call-args.ts';
import { MAX_DEAD_LETTERS_LISTED } from '../domain/dead-letter.ts';
import { TIMEOUT_MAX_SECONDS, TIMEOUT_MIN_SECONDS } from '../domain/limits.ts';
import { AUDIT_PAGE_MAX } from '../engine/views/audit.ts';

function intRange(name: string, min: number, max: number) {
  const error = `${name} must be a whole number from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

export const firstRange = intRange('first', 1, PAGE_MAX);
export const auditFirstRange = intRange('first', 1, AUDIT_PAGE_MAX);
export const deadLettersFirstRange = intRange('first', 1, MAX_DEAD_LETTERS_LISTED);
export const holdSecondsRange = intRange('holdSeconds', 0, HOLD_MAX_SECONDS);
export const timeoutSecondsRange = intRange('timeoutSeconds', TIMEOUT_MIN_SECONDS, TIMEOUT_MAX_SECONDS);
