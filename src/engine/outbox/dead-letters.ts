// The outbox's dead letters for operators (API.md §12): admins only, since they show which
// endpoints and channels fail. The store keeps them; this reads a page and shapes it.
import {
  DEFAULT_DEAD_LETTERS_LISTED,
  type DeadLetterList,
  MAX_DEAD_LETTERS_LISTED,
} from '../../domain/dead-letter.ts';
import { badInput, DomainError } from '../../domain/errors.ts';
import { hasRole, type Principal } from '../../domain/principal.ts';
import type { QuestionStore } from '../../store/types.ts';
import { targetParts } from './worker.ts';

export function createDeadLetters(store: QuestionStore, clock: () => number) {
  return async function deadLetters(p: Principal, first?: number | null): Promise<DeadLetterList> {
    if (!hasRole(p, 'admin')) {
      throw new DomainError('FORBIDDEN', "reading the outbox's dead letters needs the admin role");
    }
    const n = first ?? DEFAULT_DEAD_LETTERS_LISTED;
    if (!Number.isInteger(n) || n < 1 || n > MAX_DEAD_LETTERS_LISTED) {
      throw badInput(`first must be a whole number from 1 to ${MAX_DEAD_LETTERS_LISTED}`, 'first');
    }
    const now = clock();
    const [letters, stats] = await Promise.all([store.outbox.deadLetters(now, n), store.outbox.stats(now)]);
    return {
      totalCount: Math.max(stats.deadLetters, letters.length),
      items: letters.map((l) => {
        const { kind, name } = targetParts(l.target);
        return {
          id: l.id,
          questionId: l.questionId,
          kind,
          target: name,
          attempts: l.attempts,
          lastError: l.lastError,
          enqueuedAt: l.enqueuedAt,
          droppedAt: l.droppedAt,
        };
      }),
    };
  };
}
