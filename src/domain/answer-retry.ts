// When an answer to a question that is no longer pending is a retry of the answer that closed it
// (API.md §3, UNAVAILABLE): a client that got no reply (a stalled store, a lost response) sends
// the same answer again and must learn that it was recorded, not ALREADY_ANSWERED. Every door
// that answers (the GraphQL and REST answer doors, MCP through them, the channel doors) applies
// this one rule.
import { isDeepStrictEqual } from 'node:util';
import type { Decision, QuestionRecord } from './question.ts';

/**
 * True when `answeredBy` gave this very `value` (validated, as it would be recorded) and it is
 * what closed the question: the same identity and the same value. A sensitive question never
 * matches: its answer is not kept, and a digest of it would keep it in effect (a PIN or a short
 * secret is found from its hash by trying them all), so a retry there is ALREADY_ANSWERED.
 */
export function repeatsAnswer(
  q: Pick<QuestionRecord, 'status' | 'answeredBy' | 'sensitive' | 'answer'>,
  answeredBy: string,
  value: unknown,
): boolean {
  return (
    q.status === 'ANSWERED' &&
    q.answeredBy === answeredBy &&
    !q.sensitive &&
    isDeepStrictEqual(q.answer, value)
  );
}

/**
 * True when `by` already cast this very vote on `q` (the same decision and the same note): a
 * retry of a vote (API.md §15) succeeds and counts nothing, for every voter, before and after
 * the decision.
 */
export function repeatsVote(
  q: Pick<QuestionRecord, 'votes'>,
  by: string,
  decision: Decision,
  note: string | null,
): boolean {
  const cast = q.votes?.find((v) => v.by === by);
  return cast !== undefined && cast.decision === decision && (cast.note ?? null) === note;
}
