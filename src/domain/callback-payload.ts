// What a callback delivers as the answer (API.md §7 step 5). EXTERNAL: a JSON object body,
// or the query parameters when the body is empty. Channel-delivered in-client formats:
// {"answer": …}, and an empty body on CONFIRM means true (the confirm page's button).
import { badInput } from './errors.ts';
import { isPlainObject } from './json-schema.ts';
import { parseJsonText } from './json-text.ts';
import type { QuestionSpec } from './question.ts';

export type QueryParams = Record<string, string | string[]>;

export function callbackPayload(q: Pick<QuestionSpec, 'format'>, body: Buffer, query: QueryParams): unknown {
  const parsed = body.length === 0 ? undefined : parseJsonText(body.toString('utf8'));
  if (q.format === 'EXTERNAL') {
    if (parsed === undefined) return { ...query };
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
