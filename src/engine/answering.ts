// The in-client resolutions: answer and cancel. Both take the visible question (as announced,
// or read), check the caller's role and the input, and resolve through the one claim guard; a
// lost race, or a question closed meanwhile, says who won.
import { canAnswer, canCancel } from '../domain/access.ts';
import { validateAnswer } from '../domain/answer.ts';
import { cancelReasonOf } from '../domain/call-args.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { ClaimResult } from '../store/types.ts';
import { type EngineContext, refusal } from './context.ts';
import type { Interactions } from './types.ts';

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

  return {
    async answer(p, id, answer) {
      const { q, announced } = await target(p, id);
      if (!canAnswer(p)) throw new DomainError('FORBIDDEN', 'this key may not answer questions');
      if (q.format === 'EXTERNAL') {
        throw new DomainError('WRONG_DOOR', 'an EXTERNAL question is answered through its callback URL');
      }
      if (q.status !== 'PENDING') throw refusal(q);
      let value: unknown;
      try {
        value = validateAnswer(q, answer);
      } catch (err) {
        // A closed question says so before an invalid answer does, as it would after a read.
        if (announced) {
          const now = await ctx.visible(p, id);
          if (now.status !== 'PENDING') throw refusal(now);
        }
        throw err;
      }
      return claimed(
        await ctx.claim(q.id, {
          status: 'ANSWERED',
          answer: q.sensitive ? null : value,
          reply: q.sensitive ? value : undefined,
          answeredBy: p.id,
        }),
      );
    },

    async cancel(p, id, reason) {
      const { q } = await target(p, id);
      if (!canCancel(p, q)) throw new DomainError('FORBIDDEN', 'this key may not cancel this question');
      const cancelReason = cancelReasonOf(reason);
      if (q.status !== 'PENDING') throw refusal(q);
      return claimed(await ctx.claim(q.id, { status: 'CANCELLED', cancelReason }));
    },
  };
}
