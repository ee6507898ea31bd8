// The last three full runs side by side, with each figure's goal: a goal is judged over several
// runs on a quiet machine (issue 46), and copying ratios into a table by hand is how they drift.
// Every full run appends its ratios to bench/history.json (the newest three are kept) and
// RESULTS.md shows them beside the goal, counting the runs that met it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Figure } from './figure.ts';
import { REPO_ROOT } from './process.ts';

export const KEPT_RUNS = 3;

export interface Goal {
  /** The ratio must stay at most (`<=`) or at least (`>=`) `ratio`. */
  op: '<=' | '>=';
  ratio: number;
}

/**
 * The goals of the issues that set them (15, 30, 39, 40, 46), by figure name. A figure without
 * one is shown for orientation. An aim row (value ÷ aim) is met at or under 1.
 */
export const GOALS: Record<string, Goal> = {
  'answer→resume p50': { op: '<=', ratio: 1.5 },
  'answer→resume p99': { op: '<=', ratio: 2 },
  'askUser calls held at once': { op: '>=', ratio: 1 },
  'RSS per held askUser': { op: '<=', ratio: 1.5 },
  'fan-out to 1,000 subscribers p100': { op: '<=', ratio: 1.5 },
  'fan-out to 10,000 subscribers p50': { op: '<=', ratio: 1.3 },
  'SNAPSHOT with 1,000 pending (median)': { op: '<=', ratio: 2 },
  'callback-door answers/s': { op: '>=', ratio: 0.7 },
  'slack-door answers/s': { op: '>=', ratio: 0.8 },
  'worst answer validation (hostile schema, 64 KiB)': { op: '<=', ratio: 1 },
  'worst filter shape: page of 50, status PENDING, 100,000 retained (median)': { op: '<=', ratio: 2 },
  'MCP ask_user answer→result p50': { op: '<=', ratio: 1.3 },
  'permission hook answer→output p50': { op: '<=', ratio: 1.3 },
  'outbox deliveries/s': { op: '>=', ratio: 0.7 },
  'outbox, 1 target in 10 hung: healthy delivery delay p99': { op: '<=', ratio: 1 },
  'claims/s, audit log on': { op: '>=', ratio: 0.8 },
  'receipts signed/s, one core': { op: '>=', ratio: 0.6 },
  'Web Push, 1,000 devices, 1 push service hung: last push sent': { op: '<=', ratio: 1 },
  'ask→resume p50, tracing on': { op: '<=', ratio: 1.1 },
  'ask with 1,000 policy rules, p50 extra over none': { op: '<=', ratio: 1 },
};

/** The worst filter shape's name carries the shape, which changes from run to run. */
export function goalOf(name: string): Goal | undefined {
  return GOALS[name] ?? (name.startsWith('worst filter shape:') ? { op: '<=', ratio: 2 } : undefined);
}

export function meets(goal: Goal, ratio: number): boolean {
  return Number.isFinite(ratio) && (goal.op === '<=' ? ratio <= goal.ratio : ratio >= goal.ratio);
}

export interface PastRun {
  date: string;
  /** The 1-minute load at start and at end: whether the machine was quiet. */
  load: [number, number];
  ratios: Record<string, number>;
}

const FILE = path.join(REPO_ROOT, 'bench/history.json');

export function readHistory(): PastRun[] {
  if (!existsSync(FILE)) return [];
  try {
    const runs = JSON.parse(readFileSync(FILE, 'utf8')) as { runs?: PastRun[] };
    return Array.isArray(runs.runs) ? runs.runs : [];
  } catch {
    return [];
  }
}

/** This run appended, the oldest dropped past KEPT_RUNS; returns the runs kept, oldest first. */
export function appendRun(run: PastRun, format: (json: string) => string): PastRun[] {
  const runs = [...readHistory(), run].slice(-KEPT_RUNS);
  writeFileSync(`${FILE}.tmp`, format(`${JSON.stringify({ runs }, null, 2)}\n`));
  renameSync(`${FILE}.tmp`, FILE);
  return runs;
}

export function runOf(date: string, load: [number, number], figures: Figure[]): PastRun {
  const ratios: Record<string, number> = {};
  for (const f of figures) {
    const key = f.name.startsWith('worst filter shape:') ? 'worst filter shape' : f.name;
    ratios[key] = f.ratio;
  }
  return { date, load, ratios };
}

/** The Markdown table of the kept runs: one row per figure of the newest run. */
export function historyTable(runs: PastRun[], figures: Figure[]): string[] {
  const head = runs.map((r) => `${r.date.slice(5, 16).replace('T', ' ')} (load ${r.load.join('–')})`);
  const lines = [
    `| Figure | Goal | ${head.join(' | ')} | Met |`,
    `|---|---|${runs.map(() => '--:').join('|')}|---|`,
  ];
  for (const f of figures) {
    const key = f.name.startsWith('worst filter shape:') ? 'worst filter shape' : f.name;
    const goal = goalOf(f.name);
    const ratios = runs.map((r) => r.ratios[key]);
    const cells = ratios.map((x) => (x === undefined || !Number.isFinite(x) ? '—' : `${x.toFixed(2)}×`));
    const measured = ratios.filter((x): x is number => x !== undefined && Number.isFinite(x));
    const met = goal ? `${measured.filter((x) => meets(goal, x)).length} of ${measured.length}` : '—';
    const goalText = goal ? `${goal.op === '<=' ? '≤' : '≥'} ${goal.ratio}×` : '—';
    lines.push(`| ${key} | ${goalText} | ${cells.join(' | ')} | ${met} |`);
  }
  return lines;
}
