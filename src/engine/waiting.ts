// Holding a caller until its question leaves PENDING, its hold ends, or it goes away; and
// shaping what the caller gets back (a sensitive answer only for its asker, once).
import { notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { EngineContext } from './context.ts';
import type { AskResult } from './types.ts';
import { raceWaiter } from './waiters.ts';

export interface Waiting {
  wait(p: Principal, id: string, holdSeconds: number, signal?: AbortSignal): Promise<QuestionRecord>;
  resultOf(p: Principal, q: QuestionRecord, callbackUrl: string | null): Promise<AskResult>;
}

export function createWaiting(ctx: EngineContext): Waiting {
  const { store, clock, waiters } = ctx;
  return {
    /** Register first, then read: an answer landing in between is never missed. */
    async wait(p, id, holdSeconds, signal) {
      const waiter = waiters.register(id);
      try {
        const q = await ctx.visible(p, id);
        if (q.status !== 'PENDING' || holdSeconds === 0) return q;
        const holdEnd = clock() + holdSeconds * 1000;
        const reachesDeadline = q.timeoutAt <= holdEnd;
        const until = Math.min(holdEnd, q.timeoutAt);
        const outcome = await raceWaiter(waiter, until - clock(), signal);
        if (outcome.kind === 'settled') return outcome.question;
        if (outcome.kind === 'gone') throw notFound();
        if (outcome.kind === 'timer' && reachesDeadline) {
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
