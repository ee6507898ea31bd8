// What the inbox's end-to-end tests share: the built inbox, a real server on the private test
// Redis (on a port it keeps, so a restart can come back on the same address), GraphQL calls as
// the test principals, a headless Chromium, and a few page helpers.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { createLogger, createServer, type Server, type ServerPlugins } from '../../src/app/server.ts';
import { chromiumPath } from '../support/chromium.ts';
import { freePort, uniquePrefix } from '../support/fixtures.ts';
import { KEYS, PRINCIPALS, type Who } from '../support/server.ts';

export { KEYS, type Who };

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Builds the inbox into dist/inbox (where the server serves it from), once per run of this file. */
export async function buildInbox(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: path.join(REPO_ROOT, 'vite.config.ts'), logLevel: 'error' });
}

export interface RunningServer {
  server: Server;
  url: string;
  port: number;
  prefix: string;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Come back on the same address after a restart. */
  port?: number;
  /** Share the questions of an earlier server. */
  prefix?: string;
  /** Only these test principals (default: all of them). */
  only?: readonly Who[];
  /** More settings (e.g. larger pending caps). */
  env?: Record<string, string>;
  /** A manifest's channels and the like (default: none). */
  plugins?: ServerPlugins;
}

/** A whole server in this process on the private test Redis. */
export async function startInboxServer(o: ServerOptions = {}): Promise<RunningServer> {
  const port = o.port ?? (await freePort());
  const prefix = o.prefix ?? uniquePrefix();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    INTERACTIONS_API_KEYS: JSON.stringify(
      o.only ? PRINCIPALS.filter((p) => (o.only as readonly string[]).includes(p.id)) : PRINCIPALS,
    ),
    INTERACTIONS_KEY_PREFIX: prefix,
    INTERACTIONS_PUBLIC_BASE_URL: url,
    INTERACTIONS_REDIS_URL: inject('redisUrl'),
    INTERACTIONS_REAPER_INTERVAL_MS: '100',
    INTERACTIONS_VERIFIER_SECRETS: 'INBOX_E2E_SECRET',
    LOG_LEVEL: 'silent',
    ...o.env,
  });
  const server = await createServer(config, createLogger('silent'), o.plugins);
  await server.listen();
  return { server, url, port, prefix, close: () => server.close() };
}

// ---------------------------------------------------------------------------------------------
// GraphQL as a test principal

export interface GqlResult {
  // biome-ignore lint/suspicious/noExplicitAny: responses are checked field by field.
  data: any;
  errors?: { message: string; extensions?: { code?: string; field?: string } }[];
}

export async function gql(
  base: string,
  who: Who,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GqlResult> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEYS[who]}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GqlResult;
}

const ASK = `mutation Ask($input: AskUserInput!, $hold: Int) {
  askUser(input: $input, holdSeconds: $hold) {
    status
    answer
    callbackUrl
    question { id status answeredBy }
  }
}`;

export interface AskResult {
  status: string;
  answer: unknown;
  callbackUrl: string | null;
  question: { id: string; status: string; answeredBy: string | null };
}

/** askUser as the agent, holding up to `hold` seconds (0: returns at once with PENDING). */
export async function ask(base: string, input: Record<string, unknown>, hold = 0): Promise<AskResult> {
  const r = await gql(base, 'agent', ASK, { input, hold });
  if (r.errors) throw new Error(`askUser failed: ${JSON.stringify(r.errors)}`);
  return r.data.askUser as AskResult;
}

/** The asker blocked on its question, as an agent would be: resolves when the hold ends. */
export function askAndWait(base: string, input: Record<string, unknown>, hold = 60): Promise<AskResult> {
  return ask(base, input, hold);
}

export async function cancel(base: string, id: string, reason: string): Promise<void> {
  const r = await gql(
    base,
    'ops',
    'mutation($id: ID!, $r: String) { cancelQuestion(id: $id, reason: $r) { id } }',
    {
      id,
      r: reason,
    },
  );
  if (r.errors) throw new Error(`cancelQuestion failed: ${JSON.stringify(r.errors)}`);
}

export async function answerAs(base: string, who: Who, id: string, answer: unknown): Promise<void> {
  const r = await gql(base, who, 'mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { id } }', {
    id,
    a: answer,
  });
  if (r.errors) throw new Error(`answer failed: ${JSON.stringify(r.errors)}`);
}

export function unique(label: string): string {
  return `${label} #${Math.random().toString(36).slice(2, 8)}`;
}

// ---------------------------------------------------------------------------------------------
// The browser

export { chromiumPath, DEFAULT_CHROMIUM_PATH } from '../support/chromium.ts';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface Watched {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and CSP reports seen so far. */
  problems: string[];
  /** Dialogs (alert, confirm, prompt) the page tried to open: an XSS payload that ran. */
  dialogs: string[];
  close(): Promise<void>;
}

/** A fresh browser context (its own sessionStorage) with a page whose every complaint is kept. */
export async function openPage(browser: Browser, viewport = { width: 1100, height: 900 }): Promise<Watched> {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return { page, context, problems, dialogs, close: () => context.close() };
}

/** Signs in through the `#key=` fragment and waits for the live feed. */
export async function signIn(w: Watched, base: string, who: Who): Promise<void> {
  await w.page.goto(`${base}/#key=${KEYS[who]}`);
  await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
}

/** The card showing a question, found by its (unique) text. */
export function card(page: Page, text: string) {
  return page.locator('article[data-question-id]', { hasText: text });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/** Runs axe-core (WCAG 2.x A and AA) in the page; returns the critical and serious violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Injected through the DevTools protocol, not as an inline script, so the page's CSP holds.
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  })`)) as { violations: AxeViolation[] };
  return result.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
}

// ---------------------------------------------------------------------------------------------
// A real image for the screenshots: a PNG drawn here, as a data: URI (no network needed).

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A 480×220 "deploy preview" chart: a soft gradient with rising bars. */
export function previewPng(): string {
  const w = 480;
  const h = 220;
  const rows: Buffer[] = [];
  const bars = [0.35, 0.5, 0.42, 0.62, 0.7, 0.58, 0.82, 0.9];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) {
      const t = y / h;
      let r = Math.round(236 - 40 * t);
      let g = Math.round(241 - 30 * t);
      let b = 252;
      const slot = Math.floor((x - 40) / 50);
      const inBar = x >= 40 && slot < bars.length && (x - 40) % 50 < 32;
      if (inBar && 1 - y / h < (bars[slot] ?? 0) * 0.85) {
        r = 59 + slot * 6;
        g = 79 + slot * 4;
        b = 216;
      }
      if (y === h - 30 && x > 30 && x < w - 30) [r, g, b] = [120, 128, 150];
      row[1 + x * 3] = r;
      row[2 + x * 3] = g;
      row[3 + x * 3] = b;
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** Opens the inbox's settings page (account and sign-out, notifications, away, grants) if it is closed. */
export async function openSettings(page: Page): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Settings', exact: true });
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  await page.getByRole('heading', { name: 'Settings', level: 2 }).waitFor();
}

/** Leaves the settings page for the list, if it is open. */
export async function closeSettings(page: Page): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Settings', exact: true });
  if ((await toggle.getAttribute('aria-pressed')) === 'true') await toggle.click();
  await page.getByRole('tab', { name: /Pending/ }).waitFor();
}

/** One section of the settings page, by its heading ("Away", "Notifications", …). */
export function settingsSection(page: Page, title: string) {
  return page.getByRole('region', { name: title, exact: true });
}

/**
 * One Chromium and one inbox server for a test file: the inbox built and both started before its
 * tests, both closed after. Read `browser` and `srv` inside tests (they are set in beforeAll).
 */
export function useInboxBrowser(o: ServerOptions = {}): { browser: Browser; srv: RunningServer } {
  const env = {} as { browser: Browser; srv: RunningServer };
  beforeAll(async () => {
    await buildInbox();
    env.browser = await launchChromium();
    env.srv = await startInboxServer(o);
  }, 60_000);
  afterAll(async () => {
    await env.srv?.close();
    await env.browser?.close();
  });
  return env;
}
