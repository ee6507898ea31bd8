// What the Stats tab shows (API.md §24), worked out from decisionStats' rows: the windows a person
// picks from, the series of each chart, and durations in a unit that reads well. Pure.
import type { InboxDecisionStatsQuery, StatsGroupBy } from '../../client/generated/graphql.ts';

export type StatsRow = InboxDecisionStatsQuery['decisionStats'][number];

export const STATS_WINDOWS = [
  { id: '1d', label: 'Last 24 hours', seconds: 24 * 3600 },
  { id: '7d', label: 'Last 7 days', seconds: 7 * 24 * 3600 },
  { id: '30d', label: 'Last 30 days', seconds: 30 * 24 * 3600 },
] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number]['id'];

export const STATS_GROUPINGS: { id: StatsGroupBy; label: string }[] = [
  { id: 'ASKER' as StatsGroupBy, label: 'Asker' },
  { id: 'ACTION' as StatsGroupBy, label: 'Action' },
  { id: 'PERSON' as StatsGroupBy, label: 'Who decided' },
  { id: 'GROUP' as StatsGroupBy, label: 'Group' },
  { id: 'CHANNEL' as StatsGroupBy, label: 'Channel' },
];

/** Most keys a chart draws (the busiest; the table lists them all). */
export const CHART_KEYS = 20;

/** Who may read decisionStats: operators and admins, and auditors whose key is not restricted. */
export function canReadStats(viewer: { roles: readonly string[]; restricted: boolean }): boolean {
  return viewer.roles.some(
    (r) => r === 'operator' || r === 'admin' || (r === 'auditor' && !viewer.restricted),
  );
}

export function keyLabel(key: string | null, groupBy: StatsGroupBy): string {
  if (key !== null) return key;
  const none: Record<string, string> = {
    ASKER: '(none)',
    ACTION: '(no action)',
    PERSON: '(not a person)',
    GROUP: '(no group)',
    CHANNEL: '(in-client)',
  };
  return none[groupBy] ?? '(none)';
}

/** The unit the decision times read best in: seconds, minutes or hours, by the longest. */
export function durationUnit(rows: readonly StatsRow[]): { name: string; seconds: number } {
  const longest = Math.max(0, ...rows.map((r) => r.timeToDecisionSeconds.max ?? 0));
  if (longest >= 3 * 3600) return { name: 'hours', seconds: 3600 };
  if (longest >= 180) return { name: 'minutes', seconds: 60 };
  return { name: 'seconds', seconds: 1 };
}

export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return '–';
  if (s < 1) return s === 0 ? '0 s' : '< 1 s';
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 3 * 3600) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** The pending questions of every row, by age (each age counts those older than it). */
export function pendingByAge(rows: readonly StatsRow[]): { label: string; count: number }[] {
  const sums = new Map<number, number>();
  for (const r of rows) {
    for (const p of r.pendingByAge)
      sums.set(p.olderThanSeconds, (sums.get(p.olderThanSeconds) ?? 0) + p.count);
  }
  return [...sums].map(([age, count]) => ({ label: age === 0 ? 'all' : `> ${ageLabel(age)}`, count }));
}

function ageLabel(s: number): string {
  if (s >= 86400) return `${s / 86400} d`;
  if (s >= 3600) return `${s / 3600} h`;
  if (s >= 60) return `${s / 60} min`;
  return `${s} s`;
}
