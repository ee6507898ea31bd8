// What a callback delivers as the answer (API.md §7 step 5). EXTERNAL: a JSON object body,
// or the query parameters when the body is empty (coerced by the question's schema). Channel-delivered in-client formats:
// {"answer": …}, and an empty body on CONFIRM means true (the confirm page's button); the
// form page's form-encoded fields for FORM, and the text page's `answer` field for TEXT.
import { approvalFromForm } from './approval-form.ts';
import { choiceNamed, choicesOf } from './choice-link.ts';
import { badInput } from './errors.ts';
import { checkFormFieldCount, formFieldsToJson, queryToJson } from './form-fields.ts';
import { isPlainObject } from './json-schema.ts';
import { parseJsonText } from './json-text.ts';
import type { QuestionSpec } from './question.ts';

export type QueryParams = Record<string, string | string[]>;

/**
 * An EXTERNAL question whose callback answer depends on nothing else of it: no schema to check,
 * no verifier to run, not sensitive. Any JSON object (or the query parameters) answers it, so
 * the store may look it up and claim it in one step (src/store/redis/answer-ticket.lua mirrors
 * this rule).
 */
export function isPlainExternal(
  q: Pick<QuestionSpec, 'format' | 'schema' | 'verifier' | 'sensitive'>,
): boolean {
  return q.format === 'EXTERNAL' && q.schema === null && q.verifier === null && q.sensitive === false;
}

const FORM_ENCODED = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export function callbackPayload(
  q: Pick<QuestionSpec, 'format' | 'schema' | 'action'> & Partial<Pick<QuestionSpec, 'options'>>,
  body: Buffer,
  query: QueryParams,
  contentType?: string,
): unknown {
  // The callback form page posts its fields form-encoded (no script may build JSON there).
  if (q.format === 'FORM' && q.schema && body.length > 0 && FORM_ENCODED.test(contentType ?? '')) {
    checkFormFieldCount(q.schema, body);
    return formFieldsToJson(q.schema, new URLSearchParams(body.toString('utf8')));
  }
  if (q.format === 'TEXT' && body.length > 0 && FORM_ENCODED.test(contentType ?? '')) {
    const answer = new URLSearchParams(body.toString('utf8')).get('answer');
    if (answer === null) throw badInput('the form has no answer field', 'answer');
    return answer;
  }
  // A choice link's confirm page posts the chosen index (choice-link.ts); on an APPROVAL only a
  // form with a `choice` field is one (the approval page's own form posts the decision).
  const form = body.length > 0 && FORM_ENCODED.test(contentType ?? '');
  if (
    form &&
    (q.format === 'CONFIRM' ||
      q.format === 'SELECT' ||
      (q.format === 'APPROVAL' && new URLSearchParams(body.toString('utf8')).has('choice')))
  ) {
    const raw = new URLSearchParams(body.toString('utf8')).get('choice');
    const choice = raw === null ? null : choiceNamed(q, raw);
    if (choice === null) {
      const valid = choicesOf(q)
        .map((c) => `${c.index} (${c.label})`)
        .join(', ');
      throw badInput(`the form's choice must be one of: ${valid}`, 'answer');
    }
    return choice.answer;
  }
  // The approval page's buttons post the decision (and the note, and any edited fields).
  if (q.format === 'APPROVAL' && q.action && form) {
    return approvalFromForm(q.action, body);
  }
  const parsed = body.length === 0 ? undefined : parseJsonText(body.toString('utf8'));
  if (q.format === 'EXTERNAL') {
    if (parsed === undefined) return queryToJson(q.schema, query);
    if (!isPlainObject(parsed)) throw badInput('the callback body must be a JSON object', 'answer');
    return parsed;
  }
  if (parsed === undefined) {
    if (q.format === 'CONFIRM') return true;
    throw badInput('the callback body must be {"answer": …}', 'answer');
  }
  if (!isPlainObject(parsed) || !Object.hasOwn(parsed, 'answer')) {
    throw badInput('the callback body must be {"answer": …}', 'answer');
  }
  return parsed.answer;
}
