// Words for answers and for the ways an answer can fail, shared by the cards and the history.
import { type InteractionsError, NetworkError } from '../../client/errors.ts';
import { UNREACHABLE_TEXT } from './api.ts';
import type { Outcome } from './inbox-state.ts';
import type { Question } from './model.ts';
import { isPlainObject } from './model.ts';

export interface AnswerRow {
  label: string;
  value: string;
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return JSON.stringify(value, null, 2) ?? String(value);
}

/**
 * An answer as rows to show: one unlabelled row for a text, a yes/no or a choice; one row per
 * field of an object (labelled by the schema's title when it has one). Null when there is none.
 */
export function answerRows(q: Pick<Question, 'answer' | 'schema'>): AnswerRow[] | null {
  const a = q.answer;
  if (a === null || a === undefined) return null;
  if (!isPlainObject(a)) return [{ label: '', value: display(a) }];
  const props = isPlainObject(q.schema) && isPlainObject(q.schema.properties) ? q.schema.properties : {};
  return Object.entries(a).map(([key, value]) => {
    const prop = props[key];
    const title =
      isPlainObject(prop) && typeof prop.title === 'string' && prop.title.trim() ? prop.title : key;
    return { label: title, value: display(value) };
  });
}

export const OUTCOME_LABEL: Record<Outcome, string> = {
  ANSWERED: 'Answered',
  TIMED_OUT: 'Timed out',
  CANCELLED: 'Cancelled',
  CLOSED: 'Closed',
};

/**
 * What a 409 means, in plain words: someone else answered first, or the question timed out or was
 * cancelled (told apart by reading the question again when possible).
 */
export function conflictMessage(code: string | undefined, now: Question | null): string {
  if (code === 'ALREADY_ANSWERED' || now?.status === 'ANSWERED') {
    const who = now?.answeredBy ? ` (by ${now.answeredBy})` : '';
    return `Already answered elsewhere${who}: your answer was not recorded.`;
  }
  if (now?.status === 'TIMED_OUT') {
    return 'This question timed out before your answer arrived: your answer was not recorded.';
  }
  if (now?.status === 'CANCELLED') {
    const why = now.cancelReason ? ` (${now.cancelReason})` : '';
    return `This question was cancelled${why}: your answer was not recorded.`;
  }
  return 'This question has timed out or been cancelled: your answer was not recorded.';
}

/** The outcome a 409 implies for the card. */
export function conflictOutcome(code: string | undefined, now: Question | null): Outcome {
  if (now && now.status !== 'PENDING') return now.status;
  return code === 'ALREADY_ANSWERED' ? 'ANSWERED' : 'CLOSED';
}

/** The message for any other failed answer. */
export function answerErrorMessage(err: InteractionsError): string {
  switch (err.code) {
    case 'NOT_FOUND':
      return 'This question no longer exists, or your key may not see it.';
    case 'FORBIDDEN':
      // The server says why (not among the voters, separation of duties, …): the person, signed in
      // or with a key, needs the reason more than the code.
      return `You may not answer this question: ${err.message}`;
    case 'WRONG_DOOR':
      return 'This question is answered outside the inbox.';
    case 'RATE_LIMITED':
    case 'LIMIT_EXCEEDED':
      return 'The server is busy: try again in a moment.';
    case 'BAD_USER_INPUT':
      return `The answer was refused: ${err.message}`;
    case 'UNAVAILABLE':
      return 'The server could not confirm your answer: it may have been recorded. Sending it again is safe.';
    default:
      return err instanceof NetworkError
        ? UNREACHABLE_TEXT
        : `The answer could not be recorded: ${err.message}`;
  }
}

/**
 * How the history introduces what an EXTERNAL callback delivered (a JSON body, or the query
 * parameters): a heading that says whether the provider's signature was checked, and whether
 * there is anything to show beyond it.
 */
export function externalPayloadHead(q: Pick<Question, 'answer' | 'serverVerified' | 'sensitive'>): {
  head: string;
  empty: boolean;
} {
  const a = q.answer;
  const empty =
    !q.sensitive && (a === null || a === undefined || (isPlainObject(a) && Object.keys(a).length === 0));
  return {
    head: `The callback carried${q.serverVerified ? ' (signature verified by the server)' : ''}:`,
    empty,
  };
}
