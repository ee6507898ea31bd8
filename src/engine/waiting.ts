// Holding a caller until its question leaves PENDING, its hold ends, or it goes away; and
// shaping what the caller gets back (a sensitive answer only for its asker, once).
import { notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { EngineContext } from './context.ts';
import type { AskResult } from './types.ts';
import { type CancelSignal, raceWaiter } from './waiters.ts';

export interface Waiting {
  wait(p: Principal, id: string, holdSeconds: number, signal?: CancelSignal): Promise<QuestionRecord>;
  resultOf(p: Principal, q: QuestionRecord, callbackUrl: string | null): Promise<AskResult>;
}

/** How long a hold lasts, and whether it ends at the question's own deadline. */
interface Hold {
  until: number;
  reachesDeadline: boolean;
}

export function createWaiting(ctx: EngineContext): Waiting {
  const { store, clock, waiters } = ctx;

  /**
   * The question if the caller is not to wait, else its hold. Only numbers are kept for the
   * hold: the record would stay in the suspended frame for as long as the call is held. A
   * hold on a question this process heard asked and not yet resolved needs no read: its
   * waiter is registered, so the resolution's announcement, handled after this, settles it
   * (were it lost, the read at the hold's end has the truth). A call that does not wait reads.
   */
  async function holdOf(p: Principal, id: string, holdSeconds: number): Promise<QuestionRecord | Hold> {
    if (holdSeconds === 0) return ctx.visible(p, id);
    const q = ctx.visibleAnnounced(p, id) ?? (await ctx.visible(p, id));
    if (q.status !== 'PENDING') return q;
    const holdEnd = clock() + holdSeconds * 1000;
    return { until: Math.min(holdEnd, q.timeoutAt), reachesDeadline: q.timeoutAt <= holdEnd };
  }

  return {
    /** Register first, then read: an answer landing in between is never missed. */
    async wait(p, id, holdSeconds, signal) {
      const waiter = waiters.register(id);
      try {
        const hold = await holdOf(p, id, holdSeconds);
        if ('status' in hold) return hold;
        const outcome = await raceWaiter(waiter, hold.until - clock(), signal);
        if (outcome.kind === 'settled') return outcome.question;
        if (outcome.kind === 'gone') throw notFound();
        if (outcome.kind === 'timer' && hold.reachesDeadline) {
          // The local timer sees the deadline at once; the claim guard makes it exactly once.
          const r = await ctx.claim(id, { status: 'TIMED_OUT' });
          if (r.kind !== 'missing') return r.question;
        }
        // A record that vanished during the hold is absent, not PENDING forever.
        const latest = await store.get(id);
        if (!latest) throw notFound();
        return latest;
      } finally {
        waiter.dispose();
      }
    },

    async resultOf(p, q, callbackUrl) {
      let answer: unknown = null;
      if (q.status === 'ANSWERED') {
        if (!q.sensitive) answer = q.answer;
        else if (p.id === q.askedBy) answer = (await store.takeReply(q.id))?.value ?? null;
      }
      return { question: q, status: q.status, answer, callbackUrl };
    },
  };
}
