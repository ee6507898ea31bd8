// What happened to one answer, whatever door it came by (API.md §3, §5.3, §15). The engine's one
// answer path (record.ts) returns it; each door only maps it to its wire format: GraphQL, REST
// and MCP return the question or throw the error (`questionOrThrow`), the callback door answers
// 200 or an error status, a channel answers its provider in its own words.
import type { DomainError } from '../../domain/errors.ts';
import type { QuestionRecord } from '../../domain/question.ts';

export type AnswerOutcome =
  /** This answer closed the question: the claim won, or the vote reached its threshold. */
  | { kind: 'recorded'; question: QuestionRecord }
  /** A vote counted; the question is still pending (API.md §15). */
  | { kind: 'voted'; question: QuestionRecord }
  /** The same identity sent the same answer or vote again (a retry, §3): success, nothing changed. */
  | { kind: 'repeat'; question: QuestionRecord }
  /** No longer pending (answered by someone else, timed out, cancelled): refused, with why. */
  | { kind: 'closed'; question: QuestionRecord; error: DomainError }
  /** The value does not answer the question (BAD_USER_INPUT, or WRONG_DOOR). */
  | { kind: 'invalid'; error: DomainError }
  /** This identity may not give it: not among the voters, or it has voted already. */
  | { kind: 'forbidden'; error: DomainError }
  /** No such question (or gone meanwhile). */
  | { kind: 'notFound' };

/** Whether the answer stands as given: recorded, counted, or already recorded by this identity. */
export function succeeded(
  o: AnswerOutcome,
): o is Extract<AnswerOutcome, { kind: 'recorded' | 'voted' | 'repeat' }> {
  return o.kind === 'recorded' || o.kind === 'voted' || o.kind === 'repeat';
}
