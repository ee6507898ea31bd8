// The settings page (issue 44 item 5) in real headless Chromium at 390×844 and 1280×800 against a
// real server on Redis: every section under its heading (Account & sign-in, Passkeys,
// Notifications, Linked channels, Away, Grants you have given), the page in one column with nothing wider than
// the screen, reached from the top bar and by `#settings`, and a grant revoked from it (the
// server's myGrants is empty after). Nothing sleeps: every wait ends on a selector.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  ask,
  gql,
  KEYS,
  openPage,
  openSettings,
  REPO_ROOT,
  seriousViolations,
  settingsSection,
  signIn,
  unique,
  useInboxBrowser,
} from './harness.ts';

// Refreshed with INBOX_SCREENSHOTS=1, like the other inbox screenshots.
const SHOTS = process.env.INBOX_SCREENSHOTS
  ? path.join(REPO_ROOT, 'docs/screenshots')
  : mkdtempSync(path.join(tmpdir(), 'tai-settings-shots-'));

const env = useInboxBrowser();

const SECTIONS = [
  'Account & sign-in',
  'Passkeys',
  'Notifications',
  'Linked channels',
  'Away',
  'Grants you have given',
];

/** ops approves an action and allows the same for an hour: one grant, given by ops. */
async function giveGrant(action: string): Promise<string> {
  const asked = await ask(env.srv.url, {
    text: unique(`Run ${action}?`),
    format: 'APPROVAL',
    action: { name: action, summary: `Run ${action}`, arguments: { order: 1182 } },
  });
  const r = await gql(
    env.srv.url,
    'ops',
    'mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { id } }',
    {
      id: asked.question.id,
      a: { decision: 'APPROVED', grant: { scope: 'SAME_ARGUMENTS', seconds: 3600 } },
    },
  );
  expect(r.errors).toBeUndefined();
  const mine = await gql(env.srv.url, 'ops', '{ myGrants { id action } }');
  const grant = (mine.data.myGrants as { id: string; action: string }[]).find((g) => g.action === action);
  if (!grant) throw new Error(`no grant for ${action}`);
  return grant.id;
}

async function myGrantActions(): Promise<string[]> {
  const mine = await gql(env.srv.url, 'ops', '{ myGrants { action } }');
  return (mine.data.myGrants as { action: string }[]).map((g) => g.action).sort();
}

/** Nothing on the page is wider than the screen (no sideways scrolling on a phone). */
async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describe.each([
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desk', viewport: { width: 1280, height: 800 } },
])('the settings page at $viewport.width×$viewport.height', ({ name, viewport }) => {
  it('shows every section in one layout and revokes a grant', async () => {
    const kept = await giveGrant(`payments.keep-${name}`);
    const revoked = await giveGrant(`payments.refund-${name}`);
    expect(kept).not.toBe(revoked);
    const w = await openPage(env.browser, viewport);
    try {
      await signIn(w, env.srv.url, 'ops');
      const page = w.page;
      await openSettings(page);
      expect(new URL(page.url()).hash).toBe('#settings');
      for (const title of SECTIONS) {
        const section = settingsSection(page, title);
        await section.waitFor();
        expect(await section.getByRole('heading', { name: title, level: 3 }).isVisible()).toBe(true);
      }
      // Every section is the same card in one column: same left edge and width.
      const boxes = await Promise.all(SECTIONS.map((t) => settingsSection(page, t).boundingBox()));
      const lefts = new Set(boxes.map((b) => Math.round(b?.x ?? -1)));
      const widths = new Set(boxes.map((b) => Math.round(b?.width ?? -1)));
      expect(lefts.size).toBe(1);
      expect(widths.size).toBe(1);
      expect(await overflow(page)).toBeLessThanOrEqual(0);

      const account = settingsSection(page, 'Account & sign-in');
      await account.getByText('Signed in as ops').waitFor();
      await account.getByRole('button', { name: 'Sign out' }).waitFor();
      await settingsSection(page, 'Passkeys').getByTestId('passkeys-unavailable').waitFor();
      const notifications = settingsSection(page, 'Notifications');
      await notifications.getByRole('button', { name: 'Turn on notifications' }).waitFor();
      await notifications.getByLabel('Digest').waitFor();
      // This server has no channel a link could be confirmed on: none linked, and no form.
      const linked = settingsSection(page, 'Linked channels');
      await linked.getByTestId('links-empty').waitFor();
      await linked.getByTestId('links-no-channel').waitFor();
      await settingsSection(page, 'Away').getByLabel('Hand my questions to').waitFor();

      const grants = settingsSection(page, 'Grants you have given');
      const row = grants.getByRole('listitem').filter({ hasText: `payments.refund-${name}` });
      await row.getByText('asked by agent, with the same arguments').waitFor();
      await grants
        .getByRole('listitem')
        .filter({ hasText: `payments.keep-${name}` })
        .waitFor();
      await page.screenshot({ path: path.join(SHOTS, `settings-${name}.png`), fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);

      await row.getByRole('button', { name: 'Revoke' }).click();
      await grants.getByRole('status').getByText(`Grant for payments.refund-${name} revoked.`).waitFor();
      await row.waitFor({ state: 'detached' });
      const left = await myGrantActions();
      expect(left).toContain(`payments.keep-${name}`);
      expect(left).not.toContain(`payments.refund-${name}`);

      // Back to the inbox: the address loses #settings and the Pending tab is there again.
      await page.getByRole('button', { name: 'Back to the inbox' }).click();
      await page.getByRole('tab', { name: /Pending/ }).waitFor();
      expect(new URL(page.url()).hash).toBe('');
      expect(await settingsSection(page, 'Away').count()).toBe(0);
      // Focus is not lost with the page's Back button: it is on the top bar's Settings.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Settings');
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  }, 90_000);
});

describe('the settings page by its address', () => {
  it('opens at #settings (also from the printed sign-in URL) and the browser Back button leaves it', async () => {
    const w = await openPage(env.browser, { width: 390, height: 844 });
    try {
      await w.page.goto(`${env.srv.url}/#key=${KEYS.ops}&settings`);
      await w.page.getByRole('heading', { name: 'Settings', level: 2 }).waitFor();
      expect(new URL(w.page.url()).hash).toBe('#settings');
      await settingsSection(w.page, 'Account & sign-in').getByText('Signed in as ops').waitFor();
      expect(
        await w.page.getByRole('button', { name: 'Settings', exact: true }).getAttribute('aria-pressed'),
      ).toBe('true');

      // Opened from the top bar, the page is a history entry: Back returns to the list.
      await w.page.getByRole('button', { name: 'Back to the inbox' }).click();
      await w.page.getByRole('tab', { name: /Pending/ }).waitFor();
      await openSettings(w.page);
      await w.page.goBack();
      await w.page.getByRole('tab', { name: /Pending/ }).waitFor();
      expect(new URL(w.page.url()).hash).toBe('');
      expect(await w.page.getByRole('heading', { name: 'Settings', level: 2 }).count()).toBe(0);
    } finally {
      await w.close();
    }
  }, 60_000);
});
