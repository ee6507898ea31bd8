// Validation of the arguments around a question (holds, paging, reasons), beside the
// question and answer rules.
import { badInput } from './errors.ts';
import { TIMEOUT_MAX_SECONDS } from './limits.ts';
import type { QuestionStatus } from './question.ts';

export const HOLD_MAX_SECONDS = 3600;
export const PAGE_MAX = 200;
export const CANCEL_REASON_MAX_CHARS = 1000;

function isWhole(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/** holdSeconds: null → the default; otherwise a whole number 0..3600. */
export function holdSecondsOf(v: unknown, fallback: number): number {
  if (v === null || v === undefined) return fallback;
  if (!isWhole(v) || v < 0 || v > HOLD_MAX_SECONDS) {
    throw badInput(`holdSeconds must be a whole number from 0 to ${HOLD_MAX_SECONDS}`, 'holdSeconds');
  }
  return v;
}

export function pageSizeOf(v: unknown): number {
  if (v === null || v === undefined) return 50;
  if (!isWhole(v) || v < 1 || v > PAGE_MAX) throw badInput(`first must be from 1 to ${PAGE_MAX}`, 'first');
  return v;
}

export function cancelReasonOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string' || v.trim() === '' || [...v].length > CANCEL_REASON_MAX_CHARS) {
    throw badInput(`reason must be non-blank and at most ${CANCEL_REASON_MAX_CHARS} characters`, 'reason');
  }
  return v;
}

export function timeoutSecondsOf(v: unknown, fallback: number, field = 'timeoutSeconds'): number {
  if (v === null || v === undefined) return fallback;
  if (!isWhole(v) || v < 1 || v > TIMEOUT_MAX_SECONDS)
    throw badInput(`timeoutSeconds must be from 1 to ${TIMEOUT_MAX_SECONDS}`, field);
  return v;
}

const STATUSES = new Set(['PENDING', 'ANSWERED', 'TIMED_OUT', 'CANCELLED']);
const FILTER_LABEL_MAX_CHARS = 256;

export interface ValidFilter {
  status: QuestionStatus[] | null;
  groupId: string | null;
  audience: string | null;
  channel: string | null;
}

/** A `questions` filter: known statuses, and labels as the question rules allow them. */
export function filterOf(raw: unknown): ValidFilter {
  if (raw === null || raw === undefined)
    return { status: null, groupId: null, audience: null, channel: null };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badInput('filter must be an object', 'filter');
  const f = raw as Record<string, unknown>;
  const label = (key: 'groupId' | 'audience' | 'channel'): string | null => {
    const v = f[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string' || v.trim() === '' || [...v].length > FILTER_LABEL_MAX_CHARS) {
      throw badInput(
        `${key} must be non-blank and at most ${FILTER_LABEL_MAX_CHARS} characters`,
        `filter.${key}`,
      );
    }
    return v;
  };
  let status: QuestionStatus[] | null = null;
  if (f.status !== null && f.status !== undefined) {
    if (!Array.isArray(f.status) || !f.status.every((s) => typeof s === 'string' && STATUSES.has(s))) {
      throw badInput('status must be a list of question statuses', 'filter.status');
    }
    status = f.status as QuestionStatus[];
  }
  return { status, groupId: label('groupId'), audience: label('audience'), channel: label('channel') };
}
