// An answer as one line of plain text, for the message edits and confirmations every channel
// sends once a question is answered ("Answered by Ana: Approved"). One rule per format, so a new
// format fails to compile here until it says how it reads; the caller escapes for its provider.
import { editedOf } from '../domain/approval.ts';
import type { AnswerFormat } from '../domain/question.ts';
import { isPlainObject } from '../domain/values.ts';
import { cutUnits } from './cut-text.ts';
import type { ChannelQuestion } from './types.ts';

/** Longest line shown, in UTF-16 units (the strictest providers count those), ellipsis included. */
export const ANSWER_LINE_MAX = 500;

/** What stands for a sensitive answer: it is never shown, whatever the format. */
export const HIDDEN_ANSWER = '(sensitive answer, not shown)';

type Shown = Pick<ChannelQuestion, 'format' | 'answer' | 'sensitive' | 'status' | 'action'>;

/** Any JSON value on one line: strings as they are, the rest as compact JSON. */
function valueText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** An object as `key: value, key: value`; anything else as JSON. */
function objectText(answer: unknown): string {
  if (!isPlainObject(answer)) return valueText(answer);
  const pairs = Object.entries(answer).map(([k, v]) => `${k}: ${valueText(v)}`);
  return pairs.length > 0 ? pairs.join(', ') : '(empty)';
}

const RULES: Record<AnswerFormat, (q: Shown) => string> = {
  TEXT: (q) => valueText(q.answer),
  CONFIRM: (q) => (q.answer === true ? 'Yes' : q.answer === false ? 'No' : valueText(q.answer)),
  SELECT: (q) => valueText(q.answer),
  FORM: (q) => objectText(q.answer),
  EXTERNAL: (q) => objectText(q.answer),
  APPROVAL: (q) => {
    const decision = isPlainObject(q.answer) ? q.answer.decision : undefined;
    if (decision === 'REJECTED') return 'Rejected';
    if (decision !== 'APPROVED') return 'Decided';
    // Edited arguments are a different action from the one proposed: say so.
    return editedOf({ ...q, status: 'ANSWERED', action: q.action ?? null })
      ? 'Approved with changes'
      : 'Approved';
  },
};

/**
 * The answer of `q` as one line: a sensitive answer never (HIDDEN_ANSWER), CONFIRM Yes/No, APPROVAL
 * Approved / Approved with changes / Rejected, FORM and EXTERNAL `key: value, …`, line breaks as
 * spaces, cut to `max` UTF-16 units with an ellipsis.
 */
export function answerLine(q: Shown, max = ANSWER_LINE_MAX): string {
  if (q.sensitive) return HIDDEN_ANSWER;
  const rule = RULES[q.format] as ((q: Shown) => string) | undefined;
  // A record read from a newer server's store may name a format this build does not know.
  const text = rule ? rule(q) : valueText(q.answer);
  return cutUnits(text.replace(/\s+/g, ' ').trim(), max);
}

/**
 * What follows "Answered in the inbox by <who>": an approval's outcome (": Approved with
 * changes"), so the people in the channel know whether the action was approved as they saw it.
 * Nothing for other formats: their answers stay in the inbox.
 */
export function inboxOutcome(q: Shown): string {
  return q.format === 'APPROVAL' && !q.sensitive ? `: ${answerLine(q)}` : '';
}
