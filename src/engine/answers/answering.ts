// The in-client resolutions: answer and cancel, for the GraphQL and REST doors. An answer is
// recorded through the one answer path (answers/record.ts), which owns validation, votes, the
// claim, the retry rule and the refusals; this door adds only who may use it (the key's role)
// and where it starts from (the question as announced, when this process holds it, else a read).
import { canAnswer, canCancel } from '../../domain/access.ts';
import { cancelReasonOf } from '../../domain/call-args.ts';
import { DomainError, notFound } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { type EngineContext, refusal } from '../context.ts';
import type { Interactions } from '../types.ts';
import { questionOrThrow, type RecordAnswer } from './record.ts';

export function createAnswering(
  ctx: EngineContext,
  recordAnswer: RecordAnswer,
): Pick<Interactions, 'answer' | 'cancel'> {
  /**
   * Where a resolution starts from: the question as announced, when this process holds it
   * (its spec is what the checks need, and the claim checks the status), else a read.
   */
  async function target(p: Principal, id: string): Promise<{ q: QuestionRecord; announced: boolean }> {
    const announced = ctx.visibleAnnounced(p, id);
    return announced ? { q: announced, announced: true } : { q: await ctx.visible(p, id), announced: false };
  }

  return {
    async answer(p, id, answer) {
      const { q, announced } = await target(p, id);
      if (!canAnswer(p)) throw new DomainError('FORBIDDEN', 'this key may not answer questions');
      const by = {
        id: p.id,
        via: 'api',
        principal: p,
        roles: p.roles,
        ...(p.groups ? { groups: p.groups } : {}),
      };
      return questionOrThrow(await recordAnswer(q, by, answer, { announced }));
    },

    async cancel(p, id, reason) {
      const { q } = await target(p, id);
      if (!canCancel(p, q)) throw new DomainError('FORBIDDEN', 'this key may not cancel this question');
      const cancelReason = cancelReasonOf(reason);
      if (q.status !== 'PENDING') throw refusal(q);
      const r = await ctx.claim(q.id, { status: 'CANCELLED', cancelReason, actor: p.id });
      if (r.kind === 'missing') throw notFound();
      if (r.kind === 'lost') throw refusal(r.question);
      return r.question;
    },
  };
}
