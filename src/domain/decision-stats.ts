// The SLA view (API.md §24): over the questions asked in a window, how many were decided and by
// what (a person, a policy rule, a grant), how many timed out or were cancelled, how long the
// decisions took (p50, p90, max) and how old the ones still pending are, one row per key of the
// chosen grouping. Pure: the engine feeds it the questions it reads and the clock's `now`.
import { GRANT_ID_PREFIX } from './policy/grant-id.ts';
import type { QuestionRecord, QuestionStatus } from './question.ts';

export const STATS_GROUP_BYS = ['ASKER', 'ACTION', 'PERSON', 'GROUP', 'CHANNEL'] as const;
export type StatsGroupBy = (typeof STATS_GROUP_BYS)[number];

/** Who or what ended a question's wait: also the metric's `decided_by` label and the span's. */
export const DECIDED_BY_KINDS = ['person', 'policy', 'grant', 'timeout', 'cancelled'] as const;
export type DecidedBy = (typeof DECIDED_BY_KINDS)[number];

/** The ages `pendingByAge` counts questions older than, in seconds (0: every pending question). */
export const PENDING_AGE_STEPS = [0, 60, 300, 900, 3600, 4 * 3600, 24 * 3600] as const;

export interface TimeToDecision {
  p50: number | null;
  p90: number | null;
  max: number | null;
}

export interface PendingAge {
  olderThanSeconds: number;
  count: number;
}

export interface DecisionStatsRow {
  /** The group's key; null for questions that have none (no action, no channel, undecided...). */
  key: string | null;
  asked: number;
  decidedByPerson: number;
  decidedByPolicy: number;
  decidedByGrant: number;
  timedOut: number;
  cancelled: number;
  pending: number;
  timeToDecisionSeconds: TimeToDecision;
  pendingByAge: PendingAge[];
}

const GROUP_PREFIX = 'group:';

/**
 * Who decided a question that left PENDING, from its status and `answeredBy`: a rule answers as
 * `policy:<rule id>` (§20), a grant as `policy:grant-<id>` (its id, domain/policy/grant.ts);
 * anyone else who answered is a person (a key, a channel user, a callback's holder). Null while
 * pending.
 */
export function decidedByOf(status: QuestionStatus, answeredBy: string | null): DecidedBy | null {
  if (status === 'PENDING') return null;
  if (status === 'TIMED_OUT') return 'timeout';
  if (status === 'CANCELLED') return 'cancelled';
  if (answeredBy?.startsWith(`policy:${GRANT_ID_PREFIX}`)) return 'grant';
  if (answeredBy?.startsWith('policy:')) return 'policy';
  return 'person';
}

/** The keys a question counts under (a question routed to several groups counts in each). */
export function statsKeysOf(q: QuestionRecord, groupBy: StatsGroupBy): (string | null)[] {
  switch (groupBy) {
    case 'ASKER':
      return [q.askedBy];
    case 'ACTION':
      return [q.action?.name ?? null];
    case 'CHANNEL':
      return [q.channel];
    case 'PERSON':
      // Who decided: only a person's answer names one.
      return [decidedByOf(q.status, q.answeredBy) === 'person' ? q.answeredBy : null];
    case 'GROUP': {
      const groups = new Set<string>();
      for (const id of [q.audience, ...(q.quorum?.voters ?? [])]) {
        if (id?.startsWith(GROUP_PREFIX)) groups.add(id.slice(GROUP_PREFIX.length));
      }
      return groups.size > 0 ? [...groups].sort() : [null];
    }
  }
}

/** The nearest-rank percentile of sorted values (the value at or below which `p` % fall). */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

interface Tally {
  row: Omit<DecisionStatsRow, 'timeToDecisionSeconds' | 'pendingByAge'>;
  waits: number[];
  ages: number[];
}

export interface StatsAccumulator {
  add(q: QuestionRecord): void;
  /** The rows, most asked first, then by key (null last). */
  rows(): DecisionStatsRow[];
}

/** Accumulates questions into rows; `now` (epoch ms) dates the pending ones. */
export function createStatsAccumulator(groupBy: StatsGroupBy, now: number): StatsAccumulator {
  const tallies = new Map<string | null, Tally>();
  const tallyOf = (key: string | null): Tally => {
    let t = tallies.get(key);
    if (!t) {
      t = {
        row: {
          key,
          asked: 0,
          decidedByPerson: 0,
          decidedByPolicy: 0,
          decidedByGrant: 0,
          timedOut: 0,
          cancelled: 0,
          pending: 0,
        },
        waits: [],
        ages: [],
      };
      tallies.set(key, t);
    }
    return t;
  };
  return {
    add(q) {
      const by = decidedByOf(q.status, q.answeredBy);
      for (const key of statsKeysOf(q, groupBy)) {
        const t = tallyOf(key);
        t.row.asked++;
        if (by === null) {
          t.row.pending++;
          t.ages.push(Math.max(0, (now - q.createdAt) / 1000));
          continue;
        }
        if (by === 'timeout') t.row.timedOut++;
        else if (by === 'cancelled') t.row.cancelled++;
        else {
          if (by === 'person') t.row.decidedByPerson++;
          else if (by === 'policy') t.row.decidedByPolicy++;
          else t.row.decidedByGrant++;
          const at = q.answeredAt ?? q.closedAt ?? q.createdAt;
          t.waits.push(Math.max(0, (at - q.createdAt) / 1000));
        }
      }
    },
    rows() {
      const out: DecisionStatsRow[] = [];
      for (const t of tallies.values()) {
        const waits = t.waits.sort((a, b) => a - b);
        out.push({
          ...t.row,
          timeToDecisionSeconds: {
            p50: percentile(waits, 50),
            p90: percentile(waits, 90),
            max: waits.length > 0 ? waits[waits.length - 1]! : null,
          },
          pendingByAge: PENDING_AGE_STEPS.map((s) => ({
            olderThanSeconds: s,
            count: s === 0 ? t.ages.length : t.ages.filter((a) => a > s).length,
          })),
        });
      }
      return out.sort(
        (a, b) =>
          b.asked - a.asked ||
          (a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
      );
    },
  };
}
