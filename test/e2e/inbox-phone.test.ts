// The inbox on a phone (issue 44 item 1), in real headless Chromium at 390×844 against a real
// server: the first question's text starts within the top 300 px and its decision buttons are on
// the first screen; the filters fold behind one control that counts the active ones; the
// notification and sign-in controls sit on the settings page. At 1280×800 the same page keeps
// every filter in view. Nothing sleeps: every wait ends on a selector.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ask,
  buildInbox,
  launchChromium,
  openPage,
  REPO_ROOT,
  type RunningServer,
  signIn,
  startInboxServer,
} from './harness.ts';

// Refreshed with INBOX_SCREENSHOTS=1, like the other inbox screenshots.
const SHOTS = process.env.INBOX_SCREENSHOTS
  ? path.join(REPO_ROOT, 'docs/screenshots')
  : mkdtempSync(path.join(tmpdir(), 'tai-phone-shots-'));

let browser: Browser;
let srv: RunningServer;

beforeAll(async () => {
  await buildInbox();
  browser = await launchChromium();
  srv = await startInboxServer();
  await ask(srv.url, { text: 'Freeze the deploys tonight?', format: 'CONFIRM' });
  await ask(srv.url, {
    text: 'Refund order 1182?',
    format: 'APPROVAL',
    action: { name: 'payments.refund', arguments: { order: 1182, amount: 40 } },
  });
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await browser?.close();
});

/** The box of the first card's text and of its first decision button, in CSS pixels from the top. */
async function firstCard(page: Page) {
  const first = page.locator('article[data-question-id]').first();
  await first.locator('.q-text').waitFor();
  const text = await first.locator('.q-text').boundingBox();
  const button = await first.locator('button').first().boundingBox();
  expect(text).not.toBeNull();
  expect(button).not.toBeNull();
  return { text: text!, button: button! };
}

describe('the inbox on a phone, 390×844', () => {
  it('shows the first question within the top 300 px and its buttons on the first screen', async () => {
    const w = await openPage(browser, { width: 390, height: 844 });
    try {
      await signIn(w, srv.url, 'ops');
      const { text, button } = await firstCard(w.page);
      expect(text.y).toBeLessThanOrEqual(300);
      expect(button.y + button.height).toBeLessThanOrEqual(844);
      // Touch targets: at least 44 px high.
      expect(button.height).toBeGreaterThanOrEqual(44);
      await w.page.screenshot({ path: path.join(SHOTS, 'phone.png') });
    } finally {
      await w.close();
    }
  }, 60_000);

  it('folds the filters behind one control that counts the active ones', async () => {
    const w = await openPage(browser, { width: 390, height: 844 });
    try {
      await signIn(w, srv.url, 'ops');
      const toggle = w.page.getByRole('button', { name: /^Filters/ });
      await toggle.waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await w.page.getByLabel('Format').isVisible()).toBe(false);
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      await w.page.getByLabel('Format').selectOption('APPROVAL');
      await w.page.getByTestId('filter-count').getByText('1 of 2 pending match').waitFor();
      await w.page.screenshot({ path: path.join(SHOTS, 'phone-filters.png') });
      await toggle.click();
      await w.page.getByRole('button', { name: 'Filters (1 active)' }).waitFor();
      expect(await w.page.getByLabel('Format').isVisible()).toBe(false);
    } finally {
      await w.close();
    }
  }, 60_000);

  it('keeps notifications and sign-out on the settings page, behind one button', async () => {
    const w = await openPage(browser, { width: 390, height: 844 });
    try {
      await signIn(w, srv.url, 'ops');
      const menu = w.page.getByRole('button', { name: 'Settings' });
      await menu.waitFor();
      expect(await w.page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
      await menu.click();
      await w.page.getByRole('button', { name: 'Sign out' }).waitFor();
      expect(await w.page.getByText('Signed in as').isVisible()).toBe(true);
      expect(await w.page.getByRole('button', { name: 'Turn on notifications' }).isVisible()).toBe(true);
    } finally {
      await w.close();
    }
  }, 60_000);
});

describe('the inbox at a desk, 1280×800', () => {
  it('shows the first question near the top and every filter without a click', async () => {
    const w = await openPage(browser, { width: 1280, height: 800 });
    try {
      await signIn(w, srv.url, 'ops');
      const { text, button } = await firstCard(w.page);
      expect(text.y).toBeLessThanOrEqual(300);
      expect(button.y + button.height).toBeLessThanOrEqual(800);
      expect(await w.page.getByLabel('Format').isVisible()).toBe(true);
      await w.page.screenshot({ path: path.join(SHOTS, 'desk.png') });
    } finally {
      await w.close();
    }
  }, 60_000);
});
