// Votes on questions with a quorum (API.md §15): each answer, through any door, is a vote by the
// identity that gave it. The store records it in one atomic step and decides the question when
// a threshold is reached; this turns its outcome into the question or the error every door
// shows (a second vote: ALREADY_ANSWERED "you have already voted"; outside the voters:
// FORBIDDEN; after the decision: ALREADY_ANSWERED; closed: QUESTION_CLOSED).
import { decisionOfAnswer } from '../domain/approval.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { QuestionRecord } from '../domain/question.ts';
import { isPlainObject } from '../domain/values.ts';
import { type EngineContext, refusal } from './context.ts';

export const ALREADY_VOTED = 'you have already voted';

/** Whether an answer to `q` is a vote rather than a claim. */
export function takesVotes(q: Pick<QuestionRecord, 'quorum'>): boolean {
  return q.quorum !== null && q.quorum !== undefined;
}

/**
 * Casts `value` (an answer already validated against `q`) as a vote by `by` through door `via`
 * (`api`, `callback` or `channel:<name>`). Returns the question after it: still PENDING with the
 * vote counted, or ANSWERED when this vote decided it.
 */
export async function castVote(
  ctx: Pick<EngineContext, 'store' | 'clock' | 'retentionMs'> & { announced?: EngineContext['announced'] },
  q: QuestionRecord,
  by: string,
  via: string,
  value: unknown,
): Promise<QuestionRecord> {
  const quorum = q.quorum;
  const decision = decisionOfAnswer(q.format, value);
  if (!quorum || decision === null)
    throw new DomainError('BAD_USER_INPUT', 'this answer is not a vote', 'answer');
  const note = isPlainObject(value) && typeof value.note === 'string' ? value.note : null;
  const now = ctx.clock();
  const r = await ctx.store.vote(q.id, {
    vote: { by, via, decision, note, at: now },
    quorum,
    answer: value,
    now,
    retentionMs: ctx.retentionMs,
  });
  switch (r.kind) {
    case 'missing':
      throw notFound();
    case 'forbidden':
      throw new DomainError('FORBIDDEN', 'you are not among the voters of this question');
    case 'voted':
      throw new DomainError('ALREADY_ANSWERED', ALREADY_VOTED);
    case 'lost':
      ctx.announced?.forget(q.id);
      throw refusal(r.question);
    case 'decided':
      ctx.announced?.forget(q.id);
      return r.question;
    default:
      return r.question;
  }
}
