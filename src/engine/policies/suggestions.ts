// policySuggestions and adoptPolicySuggestion (API.md §20): an admin's occasional read over the
// decided questions the store still keeps (so `days` reaches no further than their retention),
// and adopting one as a store rule in SHADOW, through the same put as any rule (audited).
import { DomainError } from '../../domain/errors.ts';
import type { PolicyRule } from '../../domain/policy/rule.ts';
import {
  type PolicySuggestion,
  type SuggestionWindow,
  suggestPolicies,
  windowOfKey,
} from '../../domain/policy/suggest.ts';
import { hasRole, type Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { EngineContext } from '../context.ts';
import type { PolicyAdmin } from './store-rules.ts';

const PAGE = 500;
export const SUGGESTION_MIN_DECISIONS_DEFAULT = 20;
export const SUGGESTION_DAYS_DEFAULT = 30;
export const SUGGESTION_MIN_DECISIONS_MAX = 100_000;
export const SUGGESTION_DAYS_MAX = 3650;

export interface PolicySuggestions {
  list(p: Principal, minDecisions?: unknown, days?: unknown): Promise<PolicySuggestion[]>;
  adopt(p: Principal, key: unknown): Promise<PolicyRule>;
}

function whole(value: unknown, fallback: number, min: number, max: number, field: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new DomainError('BAD_USER_INPUT', `must be a whole number from ${min} to ${max}`, field);
  }
  return value;
}

export function createPolicySuggestions(
  ctx: EngineContext,
  rules: Pick<PolicyAdmin, 'put'>,
): PolicySuggestions {
  function admin(p: Principal): void {
    if (!hasRole(p, 'admin')) throw new DomainError('FORBIDDEN', 'policy suggestions are for admins');
  }

  /** The decided questions of the window, newest first as the store lists them, until one is older. */
  async function* decided(since: number): AsyncGenerator<QuestionRecord> {
    let after: string | null = null;
    for (;;) {
      const page = await ctx.store.list({ status: ['ANSWERED'] }, { first: PAGE, after });
      for (const q of page.items) {
        if (q.format === 'APPROVAL' && (q.closedAt ?? q.createdAt) >= since) yield q;
      }
      if (!page.hasNextPage || page.endCursor === null) return;
      after = page.endCursor;
    }
  }

  async function suggest(w: SuggestionWindow): Promise<PolicySuggestion[]> {
    const since = ctx.clock() - w.days * 86_400_000;
    const questions: QuestionRecord[] = [];
    for await (const q of decided(since)) questions.push(q);
    return suggestPolicies(questions, w);
  }

  return {
    async list(p, minDecisions, days) {
      admin(p);
      return suggest({
        minDecisions: whole(
          minDecisions,
          SUGGESTION_MIN_DECISIONS_DEFAULT,
          2,
          SUGGESTION_MIN_DECISIONS_MAX,
          'minDecisions',
        ),
        days: whole(days, SUGGESTION_DAYS_DEFAULT, 1, SUGGESTION_DAYS_MAX, 'days'),
      });
    },
    async adopt(p, key) {
      admin(p);
      const w = typeof key === 'string' ? windowOfKey(key) : null;
      if (w === null) throw new DomainError('BAD_USER_INPUT', 'key is not a suggestion key', 'key');
      const found = (await suggest(w)).find((s) => s.key === key);
      if (!found) {
        throw new DomainError(
          'NOT_FOUND',
          'no such suggestion now (an edit or a rejection since removes it)',
        );
      }
      return rules.put(p, found.rule);
    },
  };
}
