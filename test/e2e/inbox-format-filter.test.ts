// The inbox's format filter offers every format of the domain's one list, approvals included, in
// real headless Chromium against a real server on Redis: filtering by APPROVAL shows the
// approvals and nothing else. Nothing sleeps: every wait ends on a selector.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import { ask, buildInbox, launchChromium, openPage, signIn, startInboxServer } from './harness.ts';

let browser: Browser;

beforeAll(async () => {
  await buildInbox();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const refund = (order: number) => ({
  text: `Refund order ${order}?`,
  format: 'APPROVAL',
  action: { name: 'payments.refund', arguments: { order, amount: 40 } },
});

describe('the format filter', () => {
  it('lists every format; APPROVAL shows the approvals only', async () => {
    const srv = await startInboxServer();
    const w = await openPage(browser);
    try {
      await ask(srv.url, refund(1182));
      await ask(srv.url, { text: 'Freeze the deploys?', format: 'CONFIRM' });
      await ask(srv.url, refund(1183));
      await ask(srv.url, { text: 'What goes in the release note?', format: 'TEXT' });
      await signIn(w, srv.url, 'ops');
      await w.page.getByTestId('filter-count').getByText('4 pending').waitFor();

      const format = w.page.getByLabel('Format');
      const values = await format
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
      expect(values).toEqual(['', ...ANSWER_FORMATS]);

      await format.selectOption('APPROVAL');
      await w.page.getByTestId('filter-count').getByText('2 of 4 pending match').waitFor();
      const texts = await w.page.locator('article[data-question-id] .q-text').allTextContents();
      expect(texts.sort()).toEqual(['Refund order 1182?', 'Refund order 1183?']);
      expect(await format.locator('option:checked').textContent()).toBe('Approval');
    } finally {
      await w.close();
      await srv.close();
    }
  }, 90_000);
});
