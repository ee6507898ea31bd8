// An answer checked against its question (API.md §5.3). Errors are BAD_USER_INPUT at `answer`,
// or at `answer.<path>` for FORM and EXTERNAL payloads that fail their schema.
import { checkApprovalAnswer } from './approval.ts';
import { assertCanonicalizable } from './digest.ts';
import { badInput, isDomainError } from './errors.ts';
import { compileJsonSchema, isJsonValue, isPlainObject, jsonDepth, validateAgainst } from './json-schema.ts';
import { ANSWER_TEXT_MAX_CHARS, exceedsChars, isBlank, JSON_MAX_DEPTH } from './limits.ts';
import type { QuestionSpec } from './question.ts';
import { listChoices } from './values.ts';

export { jsonDepth };

export type AnswerTarget = Pick<QuestionSpec, 'format' | 'options' | 'schema' | 'action'>;

const FIELD = 'answer';

function checkObject(q: AnswerTarget, answer: unknown): void {
  if (!isPlainObject(answer)) throw badInput('answer must be a JSON object', FIELD);
  if (q.schema !== null && q.schema !== undefined) {
    validateAgainst(compileJsonSchema(q.schema, 'schema'), answer, FIELD);
  }
}

function check(q: AnswerTarget, answer: unknown): unknown {
  if (jsonDepth(answer, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) {
    throw badInput(`answer must be nested at most ${JSON_MAX_DEPTH} levels`, FIELD);
  }
  // Digested (answerDigest, approvedActionDigest) as RFC 8785 JSON: refused at the path of what it refuses.
  assertCanonicalizable(answer, FIELD, JSON_MAX_DEPTH);
  if (!isJsonValue(answer, JSON_MAX_DEPTH)) throw badInput('answer must be JSON', FIELD);
  switch (q.format) {
    case 'TEXT':
      if (typeof answer !== 'string') throw badInput('answer must be a string', FIELD);
      if (isBlank(answer)) throw badInput('answer must not be blank', FIELD);
      if (exceedsChars(answer, ANSWER_TEXT_MAX_CHARS)) {
        throw badInput(`answer must be at most ${ANSWER_TEXT_MAX_CHARS} characters`, FIELD);
      }
      return answer;
    case 'CONFIRM':
      if (typeof answer !== 'boolean') throw badInput('answer must be true or false', FIELD);
      return answer;
    case 'SELECT':
      if (typeof answer !== 'string') throw badInput('answer must be a string', FIELD);
      if (!(q.options ?? []).includes(answer)) {
        throw badInput(`answer must be one of the options: ${listChoices(q.options ?? [])}`, FIELD);
      }
      return answer;
    case 'FORM':
    case 'EXTERNAL':
      checkObject(q, answer);
      return answer;
    case 'APPROVAL':
      return checkApprovalAnswer(q.action, answer);
    default:
      // A record a newer server wrote may carry a format this build does not know.
      q.format satisfies never;
      throw badInput('the question has an unknown format', FIELD);
  }
}

/** Validates `answer` for question `q` and returns it unchanged. */
export function validateAnswer(q: AnswerTarget, answer: unknown): unknown {
  try {
    return check(q, answer);
  } catch (err) {
    throw isDomainError(err) ? err : badInput('invalid answer', FIELD);
  }
}
