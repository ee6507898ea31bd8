// The outputs of a run: a table on stdout, bench/results.json (machine-readable) and
// bench/RESULTS.md (the latest run, rewritten every time).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Figure, Section } from './figure.ts';
import { appendRun, historyTable, KEPT_RUNS, type PastRun, runOf } from './history.ts';
import type { Machine } from './machine.ts';
import { REPO_ROOT } from './process.ts';

export interface RunReport {
  date: string;
  durationSeconds: number;
  machine: Machine;
  sections: Section[];
  /** Figures that could not be measured, with why. */
  failures: string[];
  notes: string[];
}

function digitsFor(unit: string): number {
  if (unit === 'ms') return 2;
  if (unit === 'KiB') return 1;
  return 0;
}

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = digitsFor(unit);
  const text = value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return `${text} ${unit}`;
}

function row(f: Figure): string[] {
  return [
    f.name,
    formatValue(f.value, f.unit),
    f.floorName,
    formatValue(f.floor, f.floorUnit),
    Number.isFinite(f.ratio) ? `${f.ratio.toFixed(2)}×` : 'n/a',
  ];
}

const HEADER = ['Figure', 'Value', 'Floor (same run)', 'Floor', 'Ratio'];

export function textTable(figures: Figure[]): string {
  const rows = [HEADER, ...figures.map(row)];
  const widths = HEADER.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r.map((cell, c) => (c === 0 || c === 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

function markdownTable(figures: Figure[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, '|---|--:|---|--:|--:|'];
  for (const f of figures) lines.push(`| ${row(f).join(' | ')} |`);
  return lines.join('\n');
}

function markdown(r: RunReport, runs: PastRun[]): string {
  const m = r.machine;
  const figures = r.sections.flatMap((s) => s.figures);
  const load = (l: number[] | undefined) => (l ? l.join(' / ') : 'n/a');
  return [
    '# Benchmark results',
    '',
    'The latest `npm run bench`, rewritten by every run (do not edit by hand). Every value stands beside a',
    'floor measured in the same run on the same machine; the ratio is value ÷ floor. Machine-readable:',
    '[`results.json`](results.json).',
    '',
    `- **Date:** ${r.date} (the run took ${Math.round(r.durationSeconds)} s)`,
    `- **OS:** ${m.os}`,
    `- **CPU:** ${m.cpu}, ${m.cores} cores`,
    `- **Memory:** ${m.memoryGiB} GiB`,
    `- **Node:** ${m.node}; **Redis:** ${m.redis} (a private redis-server started for the run, no persistence)`,
    `- **Open-files limit:** ${m.openFilesLimit}`,
    `- **Load average (1/5/15 min):** ${load(m.loadAverage.start)} at start, ${load(m.loadAverage.end)} at end`,
    ...r.notes.map((n) => `- **Note:** ${n}`),
    '',
    markdownTable(figures),
    '',
    `## The last ${KEPT_RUNS} full runs`,
    '',
    'The ratio of each figure in the newest full runs (this one last; kept in [`history.json`](history.json)),',
    'beside the goal the issues set, with how many of the runs met it. The 1-minute load at start and end',
    'of each run says whether the machine was quiet (two cores: under about 2 is the benchmark alone).',
    '',
    ...historyTable(runs, figures),
    '',
    ...(r.failures.length
      ? ['**Not measured in this run:**', '', ...r.failures.map((f) => `- ${f}`), '']
      : []),
    '## What each figure measures',
    '',
    ...r.sections.flatMap((s) => [`### ${s.title}`, '', s.about, '']),
  ].join('\n');
}

/**
 * bench/** is under `biome check` (JSON and Markdown too), so both files are written the way
 * Biome formats them: a run must never turn the lint red. Without Biome, the text is kept as is.
 */
export function biomeFormatted(json: string, file: string): string {
  const biome = path.join(REPO_ROOT, 'node_modules/.bin/biome');
  if (!existsSync(biome)) return json;
  const out = spawnSync(biome, ['format', `--stdin-file-path=${file}`], { cwd: REPO_ROOT, input: json });
  return out.status === 0 && out.stdout.length > 0 ? out.stdout.toString() : json;
}

export function writeReport(r: RunReport): void {
  const json = {
    date: r.date,
    durationSeconds: Math.round(r.durationSeconds),
    machine: r.machine,
    notes: r.notes,
    failures: r.failures,
    figures: r.sections.flatMap((s) => s.figures.map((f) => ({ section: s.title, ...f }))),
  };
  const file = path.join(REPO_ROOT, 'bench/results.json');
  writeFileSync(`${file}.tmp`, biomeFormatted(`${JSON.stringify(json, null, 2)}\n`, 'bench/results.json'));
  renameSync(`${file}.tmp`, file);
  const m = r.machine.loadAverage;
  const load: [number, number] = [m.start[0] ?? Number.NaN, m.end?.[0] ?? Number.NaN];
  const runs = appendRun(runOf(r.date, load, json.figures), (text) =>
    biomeFormatted(text, 'bench/history.json'),
  );
  const md = path.join(REPO_ROOT, 'bench/RESULTS.md');
  writeFileSync(md, biomeFormatted(markdown(r, runs), 'bench/RESULTS.md') + inboxSection(md));
}

/** The section `npm run bench:inbox` writes (bench/inbox.ts) is its own: a server run keeps it. */
function inboxSection(file: string): string {
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = old.indexOf('<!-- inbox-browser:start -->');
  const end = old.indexOf('<!-- inbox-browser:end -->');
  return start >= 0 && end > start
    ? `\n${old.slice(start, end + '<!-- inbox-browser:end -->'.length)}\n`
    : '';
}
