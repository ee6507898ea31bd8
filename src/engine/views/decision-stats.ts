// decisionStats (API.md §24): the SLA view over the questions asked in a window, read from the
// store's newest-first listing in pages, starting at `until` and stopping at the first question
// asked before `since`. Its cost is bounded: a window holding more than `maxQuestions` questions
// is refused with a clear error (narrow it), never read without end. Same code on both stores:
// the listing is the stores' shared contract. It reaches back no further than the questions'
// retention (older questions are gone; the audit log keeps what happened to them).
import { visibilityScope } from '../../domain/access.ts';
import {
  createStatsAccumulator,
  type DecisionStatsRow,
  STATS_GROUP_BYS,
  type StatsGroupBy,
} from '../../domain/decision-stats.ts';
import { badInput, DomainError } from '../../domain/errors.ts';
import { canReadAudit, hasRole, type Principal } from '../../domain/principal.ts';
import { encodeCursor } from '../../store/listing.ts';
import type { QuestionStore } from '../../store/types.ts';

/** The most questions one call reads (the default of EngineSettings.statsMaxQuestions). */
export const DEFAULT_STATS_MAX_QUESTIONS = 100_000;
const PAGE = 500;

export interface DecisionStatsArgs {
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive; now when absent. */
  until?: number | null;
  groupBy: StatsGroupBy;
}

export interface DecisionStatsDeps {
  store: QuestionStore;
  clock: () => number;
  maxQuestions?: number;
}

function checkArgs(a: DecisionStatsArgs, now: number): { since: number; until: number } {
  if (!(STATS_GROUP_BYS as readonly string[]).includes(a.groupBy)) {
    throw badInput(
      `groupBy must be one of ${STATS_GROUP_BYS.join(', ')} (got ${JSON.stringify(a.groupBy)})`,
      'groupBy',
    );
  }
  if (!Number.isFinite(a.since)) throw badInput('since must be a date-time', 'since');
  const until = a.until ?? now;
  if (!Number.isFinite(until)) throw badInput('until must be a date-time', 'until');
  if (until <= a.since) throw badInput('until must be after since', 'until');
  return { since: a.since, until };
}

export async function decisionStats(
  deps: DecisionStatsDeps,
  p: Principal,
  args: DecisionStatsArgs,
): Promise<DecisionStatsRow[]> {
  // Operators and admins see the questions they may see; auditors read every question.
  if (!hasRole(p, 'operator') && !canReadAudit(p)) {
    throw new DomainError('FORBIDDEN', 'decision statistics are for operators, admins and auditors');
  }
  const now = deps.clock();
  const { since, until } = checkArgs(args, now);
  const max = deps.maxQuestions ?? DEFAULT_STATS_MAX_QUESTIONS;
  const scope = visibilityScope(p);
  const stats = createStatsAccumulator(args.groupBy, now);
  if (scope === 'none') return stats.rows();
  // A cursor at `until`: the listing goes on with the questions asked before it (no question
  // id sorts before "-", so none asked at exactly `until` is included: the end is exclusive).
  let after: string | null = encodeCursor({ createdAt: until, id: '-' });
  let read = 0;
  for (;;) {
    const page = await deps.store.list(scope, { first: PAGE, after });
    for (const q of page.items) {
      if (q.createdAt < since) return stats.rows();
      if (q.createdAt >= until) continue;
      if (++read > max) {
        throw badInput(`the window holds more than ${max} questions: narrow since and until`, 'since');
      }
      stats.add(q);
    }
    if (!page.hasNextPage || page.endCursor === null) return stats.rows();
    after = page.endCursor;
  }
}
