// `npm run bench:inbox`: the inbox page with a backlog, in headless Chromium. For 1,000 pending
// (the floor) and 10,000 (the server's default cap), it seeds a fresh in-memory server through
// GraphQL askUser (holdSeconds 0, in parallel batches; TEXT, CONFIRM and SELECT mixed, a third
// of them in groups), then measures the time to first useful paint, the time until every pending
// question is counted (the backlog past the SNAPSHOT's first part arrives as one-question ASKED
// events, which the page applies as they come and shows every 250 ms until the last part), the
// main-thread time of one answer and the JS heap. Writes bench/inbox-results.json and the inbox section of
// bench/RESULTS.md; `npm run bench:inbox -- 1000` runs one size and writes nothing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CDPSession, chromium, type Page } from 'playwright-core';
import { loadConfig } from '../src/app/config.ts';
import { createLogger, createServer } from '../src/app/server.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { freePort } from './lib/process.ts';
import { biomeFormatted } from './lib/report.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/** Debian's Chromium, or CHROMIUM_PATH; nothing is downloaded. */
function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH?.trim() || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
const KEY = 'bench-inbox-operator-key-0123456789';
const SIZES = [1_000, 10_000];
const LOADS = 3;
const ANSWERS = 5;
/** After an answer, how long the page must stay quiet for its work to count as done. */
const QUIET_MS = 300;
const GOALS = { paintMs: 2_000, countMs: 2_000, answerMs: 100, heapMB: 150 };
const SECTION_START = '<!-- inbox-browser:start -->';
const SECTION_END = '<!-- inbox-browser:end -->';

function log(line: string): void {
  process.stdout.write(`[bench:inbox ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

const ASK = `mutation Ask($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { status } }`;

function inputFor(i: number): Record<string, unknown> {
  const kind = i % 3;
  const base = {
    text: `Backlog item ${i}: ${['check the nightly export', 'approve the rollout', 'pick a region'][kind]}?`,
    timeoutSeconds: 3600 + (i % 600),
    ...(i % 30 < 10 ? { groupId: `batch-${Math.floor(i / 30)}` } : {}),
  };
  if (kind === 0) return { ...base, format: 'TEXT' };
  if (kind === 1) return { ...base, format: 'CONFIRM' };
  return { ...base, format: 'SELECT', options: ['eu-west', 'us-east', 'ap-south'] };
}

async function seed(url: string, n: number): Promise<void> {
  const inFlight = 64;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ query: ASK, variables: { input: inputFor(i) } }),
      });
      const body = (await res.json()) as { errors?: unknown };
      if (body.errors) throw new Error(`askUser ${i} failed: ${JSON.stringify(body.errors)}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

async function metric(cdp: CDPSession, name: string): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as {
    metrics: { name: string; value: number }[];
  };
  return metrics.find((m) => m.name === name)?.value ?? Number.NaN;
}

/**
 * Watches the page from its first script on, by the page's own clock: the first frame in which a
 * card is on the page, and the first in which the Pending count shows all `n`. Read in the page,
 * not through the driver: the driver's round trips share this process's event loop with the
 * server streaming the backlog, and timed that way the first paint looked as late as the last
 * backlog part (bench/README.md, "The inbox with 10,000 pending").
 */
function watchScript(n: number): string {
  return `(() => {
    const want = ${JSON.stringify(`${n} pending`)};
    const marks = (window.__benchInbox = { paint: 0, counted: 0 });
    const tick = (t) => {
      if (!marks.paint && document.querySelector('article[data-question-id]')) marks.paint = t;
      if (!marks.counted && document.querySelector('[data-testid="filter-count"]')?.textContent === want) marks.counted = t;
      if (!marks.counted) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })();`;
}

/** Loads the page and waits until every pending question is counted; both marks in ms. */
async function load(page: Page, url: string): Promise<{ paintMs: number; countMs: number }> {
  await page.goto(`${url}/#key=${KEY}`);
  const marks = await page.waitForFunction(
    () => {
      const m = (window as unknown as { __benchInbox?: { paint: number; counted: number } }).__benchInbox;
      return m?.counted ? m : null;
    },
    undefined,
    { polling: 100, timeout: 120_000 },
  );
  const { paint, counted } = (await marks.jsonValue()) as { paint: number; counted: number };
  return { paintMs: paint, countMs: counted };
}

/** Main-thread task time from clicking "Yes" until the card flipped and the page was quiet. */
async function oneAnswer(page: Page, cdp: CDPSession): Promise<{ taskMs: number; flipMs: number }> {
  const target = page.locator('article[data-status="PENDING"]', {
    has: page.getByRole('button', { name: 'Yes' }),
  });
  const card = target.first();
  const id = await card.getAttribute('data-question-id');
  const before = await metric(cdp, 'TaskDuration');
  const t0 = Date.now();
  await card.getByRole('button', { name: 'Yes' }).click();
  await page.locator(`article[data-question-id="${id}"][data-status="ANSWERED"]`).waitFor();
  const flipMs = Date.now() - t0;
  await page.evaluate((quiet) => new Promise((r) => setTimeout(r, quiet)), QUIET_MS);
  const after = await metric(cdp, 'TaskDuration');
  await page.locator(`article[data-question-id="${id}"]`).getByRole('button', { name: 'Dismiss' }).click();
  return { taskMs: (after - before) * 1000, flipMs };
}

/**
 * The driver's own share of an answer: the same Playwright click on the text of the card an
 * answer would click (nothing happens on it), measured over the same quiet window. Playwright's click runs in the page too
 * (scrolling into view, hit tests, waiting for the element to be stable), and that time counts
 * in the answer's TaskDuration.
 */
async function clickFloor(page: Page, cdp: CDPSession): Promise<number> {
  const card = page
    .locator('article[data-status="PENDING"]', { has: page.getByRole('button', { name: 'Yes' }) })
    .first();
  await card.waitFor();
  const before = await metric(cdp, 'TaskDuration');
  await card.locator('p.q-text').click();
  await page.evaluate((quiet) => new Promise((r) => setTimeout(r, quiet)), QUIET_MS);
  return ((await metric(cdp, 'TaskDuration')) - before) * 1000;
}

/** Task time over the same quiet window with no answer: the page's own background (the clock). */
async function idle(page: Page, cdp: CDPSession): Promise<number> {
  const before = await metric(cdp, 'TaskDuration');
  await page.evaluate((quiet) => new Promise((r) => setTimeout(r, quiet)), QUIET_MS);
  return ((await metric(cdp, 'TaskDuration')) - before) * 1000;
}

interface ProfileNode {
  id: number;
  hitCount?: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** The functions that took the most main-thread samples while `work` ran (self time, ms). */
async function profiled(
  cdp: CDPSession,
  work: () => Promise<unknown>,
): Promise<{ fn: string; ms: number }[]> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await work();
  const { profile } = (await cdp.send('Profiler.stop')) as {
    profile: { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[] };
  };
  const perSampleMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const self = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const name =
      `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''}`.trim();
    self.set(name, (self.get(name) ?? 0) + (node.hitCount ?? 0) * perSampleMs);
  }
  return [...self]
    .filter(([name]) => name !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([fn, ms]) => ({ fn, ms: Math.round(ms * 10) / 10 }));
}

interface SizeResult {
  pending: number;
  seedSeconds: number;
  paintMs: number[];
  /** From navigation until every pending question is counted (the Pending count shows all). */
  countMs: number[];
  /** Main-thread task time from navigation until every question is counted: the page's share. */
  loadTaskMs: number[];
  answerTaskMs: number[];
  idleTaskMs: number[];
  /** The same click on the card's text, which does nothing: the driver's share of an answer. */
  clickTaskMs: number[];
  flipMs: number[];
  heapMB: number;
  /** Where one answer's main-thread time went, and the first load's. */
  profile: { fn: string; ms: number }[];
  loadProfile: { fn: string; ms: number }[];
}

async function measure(n: number): Promise<SizeResult> {
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    // The key's own cap: a principal's default (INTERACTIONS_MAX_PENDING_PER_PRINCIPAL) is 1,000.
    INTERACTIONS_API_KEYS: JSON.stringify([
      { id: 'ops', key: KEY, roles: ['operator', 'agent'], maxPending: 20_000 },
    ]),
    INTERACTIONS_MAX_PENDING: String(Math.max(n, 10_000)),
    LOG_LEVEL: 'silent',
  });
  const server = await createServer(config, createLogger('silent'));
  const url = await server.listen();
  const browser = await launchChromium();
  try {
    const t = Date.now();
    await seed(url, n);
    const seedSeconds = (Date.now() - t) / 1000;
    log(`  ${n} pending seeded in ${seedSeconds.toFixed(1)} s`);
    const paintMs: number[] = [];
    const countMs: number[] = [];
    const loadTaskMs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript({ content: watchScript(n) });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const before = await metric(cdp, 'TaskDuration');
      const marks = await load(page, url);
      loadTaskMs.push(((await metric(cdp, 'TaskDuration')) - before) * 1000);
      paintMs.push(marks.paintMs);
      countMs.push(marks.countMs);
      await context.close();
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript({ content: watchScript(n) });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const loadProfile = await profiled(cdp, () => load(page, url));
    const answerTaskMs: number[] = [];
    const idleTaskMs: number[] = [];
    const clickTaskMs: number[] = [];
    const flipMs: number[] = [];
    for (let i = 0; i < ANSWERS; i++) {
      idleTaskMs.push(await idle(page, cdp));
      clickTaskMs.push(await clickFloor(page, cdp));
      const r = await oneAnswer(page, cdp);
      answerTaskMs.push(r.taskMs);
      flipMs.push(r.flipMs);
    }
    const profile = await profiled(cdp, () => oneAnswer(page, cdp));
    await cdp.send('HeapProfiler.collectGarbage');
    const heapMB = (await metric(cdp, 'JSHeapUsedSize')) / 1024 ** 2;
    await context.close();
    return {
      pending: n,
      seedSeconds,
      paintMs,
      countMs,
      loadTaskMs,
      answerTaskMs,
      idleTaskMs,
      clickTaskMs,
      flipMs,
      heapMB,
      profile,
      loadProfile,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

const ms = (x: number) => `${x.toFixed(0)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

function section(results: SizeResult[], date: string, seconds: number, load: number[][]): string {
  const [floor, top] = [results[0]!, results[results.length - 1]!];
  const row = (label: string, goal: string, f: (r: SizeResult) => number, fmt: (x: number) => string) =>
    `| ${label} | ${fmt(f(top))} | ${goal} | ${fmt(f(floor))} | ${ratio(f(top), f(floor))} |`;
  const m = machineLine();
  return [
    SECTION_START,
    '## The inbox page with a backlog (`npm run bench:inbox`)',
    '',
    `- **Date:** ${date} (the run took ${Math.round(seconds)} s); ${m}`,
    `- **Load average (1/5/15 min):** ${load[0]!.join(' / ')} at start, ${load[1]!.join(' / ')} at end`,
    '',
    `| Figure (headless Chromium) | ${top.pending.toLocaleString('en-US')} pending | Goal | ${floor.pending.toLocaleString('en-US')} pending (floor) | Ratio |`,
    '| --- | ---: | ---: | ---: | ---: |',
    row('First useful paint (median)', `≤ ${GOALS.paintMs} ms`, (r) => median(r.paintMs), ms),
    row('Main-thread time until all counted (median)', '', (r) => median(r.loadTaskMs), ms),
    row('Every pending question counted (median)', `≤ ${GOALS.countMs} ms`, (r) => median(r.countMs), ms),
    row(
      'Main-thread time of one answer (median)',
      `≤ ${GOALS.answerMs} ms`,
      (r) => median(r.answerTaskMs),
      ms,
    ),
    row(
      'JS heap after the answers',
      `≤ ${GOALS.heapMB} MB`,
      (r) => r.heapMB,
      (x) => `${x.toFixed(1)} MB`,
    ),
    row('Click to card flipped (median)', '', (r) => median(r.flipMs), ms),
    row('Idle main-thread time in the same window', '', (r) => median(r.idleTaskMs), ms),
    row("The same click on the card's text (the driver alone)", '', (r) => median(r.clickTaskMs), ms),
    '',
    '- **First useful paint:** from navigation start (sign-in through the `#key=` fragment, the',
    "  viewer check, the SNAPSHOT's first part of the pending questions) until the first frame with a card, by the",
    `  page's own clock (read in the page, not through the driver); median of ${LOADS} fresh loads.`,
    '- **Every pending question counted:** from navigation start until the Pending count shows the',
    "  whole backlog (the SNAPSHOT's first part, then the rest as one-question ASKED events marked",
    '  `more`, shown by the page every 250 ms until the last part), in the same fresh loads.',
    '- **One answer:** the main-thread task time (Chromium `TaskDuration`) from clicking "Yes" on a',
    `  CONFIRM card until the card shows *Answered* and then ${QUIET_MS} ms without new work have passed`,
    "  (the mutation, the card flip, the feed's ANSWERED event, the re-arranged list); median of",
    `  ${ANSWERS}. The idle row is the same window with no answer: what the page costs at rest. The click row is`,
    "  the same Playwright click on that card's text, where it does nothing, and the same window: the part of",
    "  an answer's time that is the driver's click (scrolling into view, hit tests, waiting for a stable element).",
    '- **Heap:** `JSHeapUsedSize` after a forced garbage collection, with the list loaded.',
    ...verdict(top),
    `- **CPU profile at ${top.pending.toLocaleString('en-US')} (self time; bundle names are minified):**`,
    `  the first load: ${top.loadProfile
      .slice(0, 6)
      .map((p) => `${p.fn} ${p.ms} ms`)
      .join('; ')}.`,
    `  One answer: ${top.profile
      .slice(0, 6)
      .map((p) => `${p.fn} ${p.ms} ms`)
      .join('; ')}.`,
    '  Full lists in `bench/inbox-results.json`.',
    `- **Seeding:** ${results.map((r) => `${r.pending.toLocaleString('en-US')} in ${r.seedSeconds.toFixed(1)} s`).join(', ')}`,
    '  (an in-memory server in this process, askUser with holdSeconds 0, 64 in flight).',
    SECTION_END,
  ].join('\n');
}

/** Which goals the run met and, for a missed one, what the figures say stands in the way. */
function verdict(r: SizeResult): string[] {
  const paint = median(r.paintMs);
  const count = median(r.countMs);
  const load = median(r.loadTaskMs);
  const answer = median(r.answerTaskMs);
  const lines = [
    `- **Goals at ${r.pending.toLocaleString('en-US')}:** first paint ${paint <= GOALS.paintMs ? 'met' : 'missed'}, ` +
      `every question counted ${count <= GOALS.countMs ? 'met' : 'missed'}, ` +
      `one answer ${answer <= GOALS.answerMs ? 'met' : 'missed'}, heap ${r.heapMB <= GOALS.heapMB ? 'met' : 'missed'}.`,
  ];
  if (paint > GOALS.paintMs) {
    lines.push(
      "  The first paint waits above all for the SNAPSHOT's first part (about 4 MiB of questions,",
      '  built and serialized before the first byte of it is sent).',
    );
  }
  if (count > GOALS.countMs) {
    lines.push(
      `  Every question was counted ${ms(count - paint)} after the first paint, and the page's main thread`,
      `  worked ${ms(load)} of the ${ms(count)} (${Math.round((100 * load) / count)} %): the rest is the server building the backlog's`,
      '  one-question ASKED events (it runs in this process, beside the driver) and their way to the page.',
    );
  }
  if (answer > GOALS.answerMs) {
    lines.push(
      '  One answer re-arranges the whole list (filter, sort, fold) once; the profile below shows',
      '  how much of its time that is, against React and the browser.',
    );
  }
  return lines;
}

function machineLine(): string {
  const machine = describeMachine('none (in-memory store)', 0);
  return `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`;
}

function writeSection(text: string): void {
  const file = path.join(REPO_ROOT, 'bench/RESULTS.md');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const start = current.indexOf(SECTION_START);
  const end = current.indexOf(SECTION_END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${text}${current.slice(end + SECTION_END.length)}`
      : `${current.trimEnd()}\n\n${text}\n`;
  writeFileSync(file, biomeFormatted(next, 'bench/RESULTS.md'));
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2).map(Number);
  if (wanted.some((n) => !Number.isInteger(n) || n < 1 || n > 10_000)) {
    log('sizes must be whole numbers from 1 to 10000');
    return 2;
  }
  // Always a fresh production build: a build made under vitest (NODE_ENV=test) is React's
  // development build, several times slower.
  log('building the inbox for production…');
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  await build({ configFile: path.join(REPO_ROOT, 'vite.config.ts'), mode: 'production', logLevel: 'error' });
  const started = Date.now();
  const load = [loadAverage()];
  const results: SizeResult[] = [];
  for (const n of wanted.length ? wanted : SIZES) {
    log(`${n} pending…`);
    const r = await measure(n);
    log(
      `  paint ${ms(median(r.paintMs))} (main thread ${ms(median(r.loadTaskMs))}), all counted ${ms(median(r.countMs))}, one answer ${ms(median(r.answerTaskMs))} main thread ` +
        `(idle ${ms(median(r.idleTaskMs))}, the click alone ${ms(median(r.clickTaskMs))}), flip ${ms(median(r.flipMs))}, heap ${r.heapMB.toFixed(1)} MB`,
    );
    for (const p of r.loadProfile.slice(0, 12)) log(`    load: ${p.ms} ms  ${p.fn}`);
    for (const p of r.profile.slice(0, 6)) log(`    answer: ${p.ms} ms  ${p.fn}`);
    results.push(r);
  }
  load.push(loadAverage());
  if (wanted.length) return 0;
  const date = new Date().toISOString();
  const seconds = (Date.now() - started) / 1000;
  const json = { date, durationSeconds: Math.round(seconds), loadAverage: load, goals: GOALS, results };
  writeFileSync(
    path.join(REPO_ROOT, 'bench/inbox-results.json'),
    biomeFormatted(`${JSON.stringify(json, null, 2)}\n`, 'bench/inbox-results.json'),
  );
  writeSection(section(results, date, seconds, load));
  log('wrote bench/inbox-results.json and the inbox section of bench/RESULTS.md');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
