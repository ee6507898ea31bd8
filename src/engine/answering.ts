// The in-client resolutions: answer and cancel. Both take the visible question (as announced,
// or read), check the caller's role and the input, and resolve through the one claim guard; a
// lost race, or a question closed meanwhile, says who won. An answer that repeats the one that
// closed the question (same identity, same value: domain/answer-retry.ts) succeeds instead, so
// a retry after UNAVAILABLE or a lost response is safe.
import { canAnswer, canCancel } from '../domain/access.ts';
import { validateAnswer } from '../domain/answer.ts';
import { repeatsAnswer } from '../domain/answer-retry.ts';
import { cancelReasonOf } from '../domain/call-args.ts';
import { DomainError, isDomainError, notFound, storeUnavailable } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { ClaimResult } from '../store/types.ts';
import { type EngineContext, refusal } from './context.ts';
import type { Interactions } from './types.ts';
import { castVote, takesVotes } from './voting.ts';

/** UNAVAILABLE on an answer: the claim may be applied when the store resumes. */
const ANSWER_UNKNOWN = 'the store did not respond; your answer may have been recorded — retrying is safe';

export function createAnswering(ctx: EngineContext): Pick<Interactions, 'answer' | 'cancel'> {
  /**
   * Where a resolution starts from: the question as announced, when this process holds it
   * (its spec is what the checks need, and the claim checks the status), else a read.
   */
  async function target(p: Principal, id: string): Promise<{ q: QuestionRecord; announced: boolean }> {
    const announced = ctx.visibleAnnounced(p, id);
    return announced ? { q: announced, announced: true } : { q: await ctx.visible(p, id), announced: false };
  }

  function claimed(r: ClaimResult): QuestionRecord {
    if (r.kind === 'missing') throw notFound();
    if (r.kind === 'lost') throw refusal(r.question);
    return r.question;
  }

  /**
   * A question already closed: a retry of the answer that closed it (same identity, same value)
   * gets the question as it stands; anything else is refused.
   */
  function closedFor(q: QuestionRecord, p: Principal, answer: unknown): QuestionRecord {
    if (q.status === 'ANSWERED' && q.answeredBy === p.id) {
      let value: unknown;
      try {
        value = validateAnswer(q, answer);
      } catch {
        throw refusal(q, p.id);
      }
      if (repeatsAnswer(q, p.id, value)) return q;
    }
    throw refusal(q, p.id);
  }

  /** The claim of an answer; a store that did not reply may still record it. */
  async function claimAnswer(q: QuestionRecord, p: Principal, value: unknown): Promise<ClaimResult> {
    try {
      return await ctx.claim(q.id, {
        status: 'ANSWERED',
        answer: q.sensitive ? null : value,
        reply: q.sensitive ? value : undefined,
        answeredBy: p.id,
      });
    } catch (err) {
      if (isDomainError(err) && err.code === 'UNAVAILABLE') throw storeUnavailable(ANSWER_UNKNOWN);
      throw err;
    }
  }

  return {
    async answer(p, id, answer) {
      const { q, announced } = await target(p, id);
      if (!canAnswer(p)) throw new DomainError('FORBIDDEN', 'this key may not answer questions');
      if (q.format === 'EXTERNAL') {
        throw new DomainError('WRONG_DOOR', 'an EXTERNAL question is answered through its callback URL');
      }
      if (q.status !== 'PENDING') return closedFor(q, p, answer);
      let value: unknown;
      try {
        value = validateAnswer(q, answer);
      } catch (err) {
        // A closed question says so before an invalid answer does, as it would after a read.
        if (announced) {
          const now = await ctx.visible(p, id);
          if (now.status !== 'PENDING') throw refusal(now, p.id);
        }
        throw err;
      }
      if (takesVotes(q)) return castVote(ctx, q, p.id, 'api', value);
      const r = await claimAnswer(q, p, value);
      if (r.kind === 'lost') return closedFor(r.question, p, answer);
      return claimed(r);
    },

    async cancel(p, id, reason) {
      const { q } = await target(p, id);
      if (!canCancel(p, q)) throw new DomainError('FORBIDDEN', 'this key may not cancel this question');
      const cancelReason = cancelReasonOf(reason);
      if (q.status !== 'PENDING') throw refusal(q);
      return claimed(await ctx.claim(q.id, { status: 'CANCELLED', cancelReason, actor: p.id }));
    },
  };
}
