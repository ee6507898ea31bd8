// The in-client resolutions: answer and cancel. Both read the visible question, check the
// caller's role, and resolve through the one claim guard; a lost race says who won.
import { canAnswer, canCancel } from '../domain/access.ts';
import { validateAnswer } from '../domain/answer.ts';
import { cancelReasonOf } from '../domain/call-args.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import { type EngineContext, refusal } from './context.ts';
import type { Interactions } from './types.ts';

export function createAnswering(ctx: EngineContext): Pick<Interactions, 'answer' | 'cancel'> {
  return {
    async answer(p, id, answer) {
      const q = await ctx.visible(p, id);
      if (!canAnswer(p)) throw new DomainError('FORBIDDEN', 'this key may not answer questions');
      if (q.format === 'EXTERNAL') {
        throw new DomainError('WRONG_DOOR', 'an EXTERNAL question is answered through its callback URL');
      }
      if (q.status !== 'PENDING') throw refusal(q);
      const value = validateAnswer(q, answer);
      const r = await ctx.claim(q.id, {
        status: 'ANSWERED',
        answer: q.sensitive ? null : value,
        reply: q.sensitive ? value : undefined,
        answeredBy: p.id,
      });
      if (r.kind === 'missing') throw notFound();
      if (r.kind === 'lost') throw refusal(r.question);
      return r.question;
    },

    async cancel(p, id, reason) {
      const q = await ctx.visible(p, id);
      if (!canCancel(p, q)) throw new DomainError('FORBIDDEN', 'this key may not cancel this question');
      const cancelReason = cancelReasonOf(reason);
      if (q.status !== 'PENDING') throw refusal(q);
      const r = await ctx.claim(q.id, { status: 'CANCELLED', cancelReason });
      if (r.kind === 'missing') throw notFound();
      if (r.kind === 'lost') throw refusal(r.question);
      return r.question;
    },
  };
}
