// The Stats tab (API.md §24): who decided the questions asked in a window, how long the decisions
// took and how old the pending ones are, grouped by asker, action, person, group or channel.
// Three charts and a table with every number (the table is what a screen reader reads).
import type { ChartDataset } from 'chart.js';
import { useEffect, useId, useMemo, useState } from 'react';
import { InboxDecisionStatsDocument, type StatsGroupBy } from '../../client/generated/graphql.ts';
import { failureText, isRefusedKey, type Transport } from '../lib/api.ts';
import {
  CHART_KEYS,
  durationUnit,
  formatSeconds,
  keyLabel,
  pendingByAge,
  STATS_GROUPINGS,
  STATS_WINDOWS,
  type StatsRow,
  type StatsWindow,
} from '../lib/stats.ts';
import { StatsChart } from './StatsChart.tsx';
import './stats.css';

type Load =
  | { phase: 'loading' }
  | { phase: 'failed'; message: string }
  | { phase: 'loaded'; rows: StatsRow[]; groupBy: StatsGroupBy };

const OUTCOMES = [
  { field: 'decidedByPerson', label: 'A person', color: '#3b4fd8' },
  { field: 'decidedByPolicy', label: 'A rule', color: '#1f7a3f' },
  { field: 'decidedByGrant', label: 'A grant', color: '#0e7490' },
  { field: 'timedOut', label: 'Timed out', color: '#b7791f' },
  { field: 'cancelled', label: 'Cancelled', color: '#b42318' },
  { field: 'pending', label: 'Pending', color: '#8a93a6' },
] as const;

function Charts({ rows, groupBy }: { rows: StatsRow[]; groupBy: StatsGroupBy }) {
  const shown = useMemo(() => rows.slice(0, CHART_KEYS), [rows]);
  const labels = useMemo(() => shown.map((r) => keyLabel(r.key, groupBy)), [shown, groupBy]);
  const outcomes = useMemo<ChartDataset<'bar', number[]>[]>(
    () =>
      OUTCOMES.map((o) => ({ label: o.label, data: shown.map((r) => r[o.field]), backgroundColor: o.color })),
    [shown],
  );
  const unit = durationUnit(shown);
  const times = useMemo<ChartDataset<'bar', number[]>[]>(
    () =>
      (['p50', 'p90', 'max'] as const).map((p, i) => ({
        label: p === 'max' ? 'longest' : p,
        data: shown.map((r) => (r.timeToDecisionSeconds[p] ?? 0) / unit.seconds),
        backgroundColor: ['#3b4fd8', '#7c8cf0', '#c3cbfa'][i],
      })),
    [shown, unit.seconds],
  );
  const ages = useMemo(() => pendingByAge(rows), [rows]);
  const ageLabels = useMemo(() => ages.map((a) => a.label), [ages]);
  const ageData = useMemo<ChartDataset<'bar', number[]>[]>(
    () => [{ label: 'Pending', data: ages.map((a) => a.count), backgroundColor: '#8a93a6' }],
    [ages],
  );
  return (
    <div className="stats-charts">
      <StatsChart
        label="Who decided"
        labels={labels}
        datasets={outcomes}
        stacked
        unit="questions"
        testId="chart-outcomes"
      />
      <StatsChart
        label="Time to decision"
        labels={labels}
        datasets={times}
        unit={unit.name}
        testId="chart-times"
      />
      <StatsChart
        label="Pending, by age"
        labels={ageLabels}
        datasets={ageData}
        unit="questions"
        testId="chart-pending"
      />
    </div>
  );
}

function Table({ rows, groupBy }: { rows: StatsRow[]; groupBy: StatsGroupBy }) {
  const heading = STATS_GROUPINGS.find((g) => g.id === groupBy)?.label ?? 'Key';
  return (
    <table className="stats-table" data-testid="stats-table">
      <thead>
        <tr>
          <th scope="col">{heading}</th>
          <th scope="col">Asked</th>
          {OUTCOMES.map((o) => (
            <th scope="col" key={o.field}>
              {o.label}
            </th>
          ))}
          <th scope="col">p50</th>
          <th scope="col">p90</th>
          <th scope="col">Longest</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key ?? ''} data-key={r.key ?? ''}>
            <th scope="row">{keyLabel(r.key, groupBy)}</th>
            <td>{r.asked}</td>
            {OUTCOMES.map((o) => (
              <td key={o.field}>{r[o.field]}</td>
            ))}
            <td>{formatSeconds(r.timeToDecisionSeconds.p50)}</td>
            <td>{formatSeconds(r.timeToDecisionSeconds.p90)}</td>
            <td>{formatSeconds(r.timeToDecisionSeconds.max)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function StatsPanel({ api, onUnauthorized }: { api: Transport; onUnauthorized(): void }) {
  const id = useId();
  const [span, setSpan] = useState<StatsWindow>('7d');
  const [groupBy, setGroupBy] = useState<StatsGroupBy>('ASKER');
  const [load, setLoad] = useState<Load>({ phase: 'loading' });

  useEffect(() => {
    let live = true;
    const seconds = STATS_WINDOWS.find((w) => w.id === span)!.seconds;
    const since = new Date(Date.now() - seconds * 1000).toISOString();
    setLoad({ phase: 'loading' });
    api
      .request(InboxDecisionStatsDocument, { since, groupBy })
      .then((data) => live && setLoad({ phase: 'loaded', rows: data.decisionStats, groupBy }))
      .catch((err: unknown) => {
        if (!live) return;
        if (isRefusedKey(err)) onUnauthorized();
        else setLoad({ phase: 'failed', message: failureText(err, 'The statistics could not be read.') });
      });
    return () => {
      live = false;
    };
  }, [api, span, groupBy, onUnauthorized]);

  return (
    <div className="stats" data-testid="stats" data-phase={load.phase}>
      <div className="stats-controls">
        <label htmlFor={`${id}-window`}>Questions asked</label>
        <select id={`${id}-window`} value={span} onChange={(e) => setSpan(e.target.value as StatsWindow)}>
          {STATS_WINDOWS.map((w) => (
            <option key={w.id} value={w.id}>
              {w.label}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-group`}>grouped by</label>
        <select
          id={`${id}-group`}
          value={groupBy}
          onChange={(e) => setGroupBy(e.target.value as StatsGroupBy)}
        >
          {STATS_GROUPINGS.map((g) => (
            <option key={g.id} value={g.id}>
              {g.label}
            </option>
          ))}
        </select>
      </div>
      {load.phase === 'loading' && <p className="hint">Reading the statistics…</p>}
      {load.phase === 'failed' && (
        <p className="banner banner-warning" role="alert">
          {load.message}
        </p>
      )}
      {load.phase === 'loaded' && load.rows.length === 0 && (
        <p className="hint" data-testid="stats-empty">
          No questions were asked in this window.
        </p>
      )}
      {load.phase === 'loaded' && load.rows.length > 0 && (
        <>
          <Charts rows={load.rows} groupBy={load.groupBy} />
          <Table rows={load.rows} groupBy={load.groupBy} />
        </>
      )}
    </div>
  );
}
