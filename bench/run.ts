// `npm run bench`: starts a private Redis, measures each figure beside its floor (each figure
// starts and stops its own server processes), prints a table, and writes bench/results.json
// and bench/RESULTS.md. `npm run bench -- resume fanout` runs only those figures and writes
// no files (a partial run must not replace the full record).
import { answerValidation } from './figures/answer-validation.ts';
import { auditCost } from './figures/audit-cost.ts';
import { callbackDoor } from './figures/callback-door.ts';
import { fanout, fanout10k } from './figures/fanout.ts';
import { heldRequests } from './figures/held-requests.ts';
import { hookAsk } from './figures/hook-ask.ts';
import { listing } from './figures/listing.ts';
import { mcpAsk } from './figures/mcp-ask.ts';
import { outbox } from './figures/outbox.ts';
import { policyRules } from './figures/policy-rules.ts';
import { receiptSigning } from './figures/receipts.ts';
import { replicaWait } from './figures/replica-wait.ts';
import { resumeLatency } from './figures/resume-latency.ts';
import { slackDoor } from './figures/slack-door.ts';
import { snapshot } from './figures/snapshot.ts';
import { traceResume } from './figures/trace-resume.ts';
import { webPush } from './figures/web-push.ts';
import type { BenchContext, Section } from './lib/figure.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { killAllChildren, openFilesLimit } from './lib/process.ts';
import { startRedis } from './lib/redis.ts';
import { type RunReport, textTable, writeReport } from './lib/report.ts';
import { removeRunSecrets } from './lib/run-secrets.ts';

const FIGURES: Record<string, (ctx: BenchContext) => Promise<Section>> = {
  resume: resumeLatency,
  held: heldRequests,
  fanout,
  'fanout-10k': fanout10k,
  snapshot,
  callback: callbackDoor,
  'slack-door': slackDoor,
  validation: answerValidation,
  'replica-wait': replicaWait,
  listing,
  mcp: mcpAsk,
  hooks: hookAsk,
  outbox,
  audit: auditCost,
  receipts: receiptSigning,
  push: webPush,
  traces: traceResume,
  policies: policyRules,
};

/** The whole run stops by itself well inside fifteen minutes, whatever hangs (a full run takes about ten). */
const DEADLINE_MS = 14 * 60_000;

function log(line: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !(w in FIGURES));
  if (unknown.length) {
    log(`unknown figure(s) ${unknown.join(', ')}; known: ${Object.keys(FIGURES).join(', ')}`);
    return 2;
  }
  const keys = wanted.length ? wanted : Object.keys(FIGURES);
  const started = Date.now();
  const redis = await startRedis();
  log(`private redis-server ${redis.version} on ${redis.url}`);
  const machine = describeMachine(redis.version, openFilesLimit());
  const report: RunReport = {
    date: new Date().toISOString(),
    durationSeconds: 0,
    machine,
    sections: [],
    failures: [],
    notes: [],
  };
  try {
    for (const key of keys) {
      log(`figure ${key}…`);
      const t = Date.now();
      try {
        const section = await FIGURES[key]!({ redisUrl: redis.url, log });
        report.sections.push(section);
        for (const w of section.warnings ?? []) {
          report.notes.push(`${section.title}: ${w}`);
          log(`  warning: ${w}`);
        }
        log(`figure ${key} done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        report.failures.push(`${key}: ${why.split('\n')[0]}`);
        log(`figure ${key} FAILED: ${why}`);
      }
    }
  } finally {
    await redis.stop();
    removeRunSecrets();
  }
  machine.loadAverage.end = loadAverage();
  report.durationSeconds = (Date.now() - started) / 1000;
  const busy = Math.max(machine.loadAverage.start[0] ?? 0, machine.loadAverage.end[0] ?? 0);
  if (busy > machine.cores * 0.5) {
    report.notes.push(
      `the machine was busy (1-minute load up to ${busy} on ${machine.cores} cores, other work beside the ` +
        'benchmark): latencies and throughputs are noisier than on an idle machine; ratios hold up better ' +
        'because each floor is measured beside its figure.',
    );
  }
  const figures = report.sections.flatMap((s) => s.figures);
  process.stdout.write(`\n${textTable(figures)}\n\n`);
  for (const f of report.failures) process.stdout.write(`not measured: ${f}\n`);
  if (wanted.length === 0) {
    writeReport(report);
    log('wrote bench/results.json and bench/RESULTS.md');
  } else {
    // A partial run is for looking closer: show the parameters the files would have kept.
    for (const s of report.sections)
      process.stdout.write(`${s.title}\n${JSON.stringify(s.figures[0]?.parameters, null, 2)}\n`);
  }
  return report.failures.length ? 1 : 0;
}

const deadline = setTimeout(() => {
  log(`deadline of ${DEADLINE_MS / 60_000} minutes reached: stopping`);
  killAllChildren();
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}
process.on('exit', () => {
  killAllChildren();
  removeRunSecrets();
});

main().then(
  (code) => {
    killAllChildren();
    process.exit(code);
  },
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAllChildren();
    process.exit(1);
  },
);
