// The inbox's Stats tab (API.md §24) in real headless Chromium against a real server on Redis:
// an operator sees who decided the questions and how fast, as three Chart.js charts drawn on
// canvases under the inbox's CSP (no violation, no console error) and a table with the numbers;
// changing the grouping reads them again; an agent has no Stats tab. Nothing sleeps: every wait
// ends on a selector or on the canvas having been drawn.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerAs,
  ask,
  buildInbox,
  cancel,
  launchChromium,
  openPage,
  REPO_ROOT,
  type RunningServer,
  seriousViolations,
  signIn,
  startInboxServer,
} from './harness.ts';

// Refreshed with INBOX_SCREENSHOTS=1, like the other inbox screenshots.
const SHOTS = process.env.INBOX_SCREENSHOTS
  ? path.join(REPO_ROOT, 'docs/screenshots')
  : mkdtempSync(path.join(tmpdir(), 'inbox-shots-'));

let browser: Browser;
let srv: RunningServer;

beforeAll(async () => {
  await buildInbox();
  browser = await launchChromium();
  srv = await startInboxServer();
  const one = await ask(srv.url, { text: 'Ship it?', format: 'CONFIRM' });
  const two = await ask(srv.url, { text: 'Roll back?', format: 'CONFIRM' });
  await ask(srv.url, { text: 'Still waiting?', format: 'CONFIRM' });
  await answerAs(srv.url, 'ops', one.question.id, true);
  await cancel(srv.url, two.question.id, 'not needed');
}, 90_000);

afterAll(async () => {
  await srv?.close();
  await browser?.close();
});

/** How many pixels of a chart's canvas were painted. */
function painted(page: Page, testId: string): Promise<number> {
  return page.evaluate((id) => {
    const c = document.querySelector(`[data-testid="${id}"] canvas`) as HTMLCanvasElement | null;
    if (!c || c.width === 0 || c.height === 0) return 0;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
    return n;
  }, testId);
}

const rowCells = (page: Page, key: string) =>
  page.locator(`[data-testid="stats-table"] tbody tr[data-key="${key}"] > *`).allTextContents();

describe('the Stats tab', () => {
  it('draws who decided, how fast and what waits, under the CSP, with the numbers in a table', async () => {
    const w = await openPage(browser);
    try {
      await signIn(w, srv.url, 'ops');
      await w.page.getByRole('tab', { name: 'Stats' }).click();
      await w.page.locator('[data-testid="stats"][data-phase="loaded"]').waitFor();
      // Asked, a person, a rule, a grant, timed out, cancelled, pending, p50, p90, longest.
      const cells = await rowCells(w.page, 'agent');
      expect(cells.slice(0, 8)).toEqual(['agent', '3', '1', '0', '0', '0', '1', '1']);
      for (const id of ['chart-outcomes', 'chart-times', 'chart-pending']) {
        await w.page.waitForFunction((testId) => {
          const c = document.querySelector(`[data-testid="${testId}"] canvas`) as HTMLCanvasElement | null;
          return c !== null && c.width > 0 && c.height > 0;
        }, id);
        expect(await painted(w.page, id), id).toBeGreaterThan(500);
      }
      expect(await w.page.getByTestId('chart-outcomes').getAttribute('data-bars')).toBe('1');
      expect(await w.page.getByRole('img', { name: 'Who decided' }).count()).toBe(1);
      await w.page.screenshot({ path: path.join(SHOTS, 'stats.png'), fullPage: true });

      await w.page.getByLabel('grouped by', { exact: true }).selectOption('PERSON');
      await w.page.locator('[data-testid="stats-table"] tbody tr[data-key="ops"]').waitFor();
      expect((await rowCells(w.page, 'ops')).slice(0, 3)).toEqual(['ops', '1', '1']);
      expect((await rowCells(w.page, '')).slice(0, 2)).toEqual(['(not a person)', '2']);

      expect(await seriousViolations(w.page)).toEqual([]);
      // No CSP report, no console error, no script error: Chart.js ran as the page's own script.
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  }, 90_000);

  it('is not offered to an agent, who may not read the statistics', async () => {
    const w = await openPage(browser);
    try {
      await signIn(w, srv.url, 'agent');
      await w.page.getByRole('tab', { name: 'History' }).waitFor();
      expect(await w.page.getByRole('tab').count()).toBe(2);
      expect(await w.page.getByRole('tab', { name: 'Stats' }).count()).toBe(0);
    } finally {
      await w.close();
    }
  }, 90_000);
});
