// The settings page's Away and quiet-hours sections (API.md §22) in real headless Chromium against a
// real server on Redis: alice hands her questions to bob (a refusal, to herself, is shown as the
// server words it), sets quiet hours and a digest, and ends the delegation; bob's inbox shows
// alice's question while the delegation holds, and a claim shows on the card. Nothing sleeps:
// every wait ends on a selector.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ask,
  buildInbox,
  card,
  gql,
  launchChromium,
  openPage,
  openSettings,
  settingsSection,
  signIn,
  startInboxServer,
} from './harness.ts';

let browser: Browser;

beforeAll(async () => {
  await buildInbox();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('away and quiet hours', () => {
  it('delegates, refuses oneself, saves quiet hours, shows a claim, and ends the delegation', async () => {
    const srv = await startInboxServer();
    const alice = await openPage(browser);
    const bob = await openPage(browser);
    try {
      const asked = await ask(srv.url, {
        text: 'Approve the refund for order 77?',
        format: 'CONFIRM',
        audience: 'alice',
      });
      await signIn(alice, srv.url, 'alice');
      const page = alice.page;
      await openSettings(page);
      const settings = settingsSection(page, 'Away');
      const quiet = settingsSection(page, 'Notifications');
      await settings.getByTestId('delegation-current').getByText('Your questions come to you.').waitFor();

      // A week from now, in the browser's own local time (what a datetime-local input holds).
      const inAWeek = await page.evaluate(() => {
        const d = new Date(Date.now() + 7 * 86_400_000);
        return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      });
      await settings.getByLabel('Hand my questions to').fill('alice');
      await settings.getByLabel('Until').fill(inAWeek);
      await settings.getByRole('button', { name: 'Hand over' }).click();
      await settings.getByRole('alert').getByText('a delegation to yourself is refused').waitFor();

      await settings.getByLabel('Hand my questions to').fill('bob');
      await settings.getByLabel('Reason').fill('on holiday');
      await settings.getByRole('button', { name: 'Hand over' }).click();
      await settings.getByRole('status').getByText('Your questions go to bob').waitFor();
      await settings.getByTestId('delegation-current').getByText('(on holiday)').waitFor();

      await quiet.getByLabel('From').fill('22:00');
      await quiet.getByLabel('To', { exact: true }).fill('07:00');
      await quiet.getByLabel('Time zone').fill('Europe/Paris');
      await quiet.getByLabel('Digest').selectOption('DAILY');
      await quiet.getByRole('button', { name: 'Save' }).click();
      await quiet.getByTestId('settings-note').getByText('Quiet hours 22:00–07:00 saved.').waitFor();
      const prefs = await gql(
        srv.url,
        'alice',
        '{ viewer { notificationPrefs { quietHours { from to timeZone } digest } } }',
      );
      expect(prefs.data).toEqual({
        viewer: {
          notificationPrefs: {
            quietHours: { from: '22:00', to: '07:00', timeZone: 'Europe/Paris' },
            digest: 'DAILY',
          },
        },
      });

      // bob sees alice's question, claimed by ops, and that he receives alice's questions.
      const claimed = await gql(
        srv.url,
        'ops',
        'mutation($id: ID!) { claimQuestion(id: $id) { claimedBy } }',
        {
          id: asked.question.id,
        },
      );
      expect(claimed.data).toEqual({ claimQuestion: { claimedBy: 'ops' } });
      await signIn(bob, srv.url, 'bob');
      const shown = card(bob.page, 'Approve the refund for order 77?');
      await shown.getByText('for alice').waitFor();
      await shown.getByTestId('claimed-by').getByText('claimed by ops').waitFor();
      await openSettings(bob.page);
      await bob.page.getByTestId('acting-for').getByText('You receive the questions of alice.').waitFor();

      await settings.getByRole('button', { name: 'End now' }).click();
      await settings.getByRole('status').getByText('Delegation ended.').waitFor();
      await settings.getByTestId('delegation-current').getByText('Your questions come to you.').waitFor();
      const after = await gql(srv.url, 'bob', 'query($id: ID!) { question(id: $id) { id } }', {
        id: asked.question.id,
      });
      expect(after.data).toEqual({ question: null });
    } finally {
      await alice.close();
      await bob.close();
      await srv.close();
    }
  }, 120_000);
});
