// Keyboard operation of the inbox (issue 44 item 3), in real headless Chromium against a real
// server: j/k move between cards, a approves (Yes), r rejects (No), e opens an approval's edit,
// ? shows the help overlay (Escape closes it); a letter typed into a field stays text. Each
// shortcut's effect is read back from the server. Nothing sleeps: every wait ends on a selector.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SHORTCUTS } from '../../src/inbox/lib/shortcuts.ts';
import { ask, gql, openPage, signIn, useInboxBrowser } from './harness.ts';

const env = useInboxBrowser();

async function read(id: string): Promise<{ status: string; answer: unknown }> {
  const r = await gql(env.srv.url, 'ops', 'query($id: ID!) { question(id: $id) { status answer } }', { id });
  return r.data.question;
}

/** The id of the card that has focus, or null. */
const focusedId = (page: Page) =>
  page.evaluate(
    () =>
      document.activeElement?.closest('article[data-question-id]')?.getAttribute('data-question-id') ?? null,
  );

describe('keyboard shortcuts', () => {
  it('j/k move, a approves, r rejects, e edits, ? shows the help; typing in a field is text', async () => {
    // Newest first: the list shows them as third, second, first.
    const first = await ask(env.srv.url, { text: 'Freeze the deploys?', format: 'CONFIRM' });
    const second = await ask(env.srv.url, {
      text: 'Refund order 7?',
      format: 'APPROVAL',
      action: { name: 'payments.refund', arguments: { order: 7 } },
    });
    const third = await ask(env.srv.url, {
      text: 'Refund order 8?',
      format: 'APPROVAL',
      action: {
        name: 'payments.refund',
        arguments: { amount: 10 },
        argumentsSchema: { type: 'object', properties: { amount: { type: 'integer' } } },
        editable: true,
      },
    });
    const w = await openPage(env.browser);
    try {
      await signIn(w, env.srv.url, 'ops');
      await w.page.locator(`article[data-question-id="${first.question.id}"]`).waitFor();

      await w.page.keyboard.press('j');
      expect(await focusedId(w.page)).toBe(third.question.id);
      await w.page.keyboard.press('j');
      await w.page.keyboard.press('j');
      expect(await focusedId(w.page)).toBe(first.question.id);
      await w.page.keyboard.press('k');
      expect(await focusedId(w.page)).toBe(second.question.id);

      // A letter typed in the note is text, not a shortcut.
      await w.page.locator(`article[data-question-id="${second.question.id}"] textarea`).fill('');
      await w.page.locator(`article[data-question-id="${second.question.id}"] textarea`).press('a');
      expect((await read(second.question.id)).status).toBe('PENDING');

      await w.page.locator(`article[data-question-id="${second.question.id}"]`).focus();
      await w.page.keyboard.press('r');
      await w.page
        .locator(`article[data-question-id="${second.question.id}"][data-status="ANSWERED"]`)
        .waitFor();
      expect(await read(second.question.id)).toEqual({
        status: 'ANSWERED',
        answer: { decision: 'REJECTED', note: 'a' },
      });

      await w.page.locator(`article[data-question-id="${first.question.id}"]`).focus();
      await w.page.keyboard.press('a');
      await w.page
        .locator(`article[data-question-id="${first.question.id}"][data-status="ANSWERED"]`)
        .waitFor();
      expect(await read(first.question.id)).toEqual({ status: 'ANSWERED', answer: true });

      await w.page.locator(`article[data-question-id="${third.question.id}"]`).focus();
      await w.page.keyboard.press('e');
      await w.page.getByRole('button', { name: 'Approve with these arguments' }).waitFor();
      expect((await read(third.question.id)).status).toBe('PENDING');

      await w.page.locator('body').press('?');
      const help = w.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.waitFor();
      const keys = await help.locator('kbd').allTextContents();
      expect(keys).toEqual(SHORTCUTS.map((s) => s.key));
      await w.page.keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });
    } finally {
      await w.close();
    }
  }, 90_000);
});
