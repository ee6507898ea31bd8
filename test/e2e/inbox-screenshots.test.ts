// The screenshots of docs/inbox.md that no other test takes (issue 44): the keyboard help overlay
// over a list of approvals, and the history telling an edited approval's story beside a policy
// decision. Each is taken once the view shows what it is meant to show (asserted first), in real
// headless Chromium against a real server on Redis. Refreshed with INBOX_SCREENSHOTS=1, like
// the other inbox screenshots; ordinary runs write them to a temporary folder.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHORTCUTS } from '../../src/inbox/lib/shortcuts.ts';
import { answerAs, ask, gql, openPage, REPO_ROOT, signIn, useInboxBrowser } from './harness.ts';

const SHOTS = process.env.INBOX_SCREENSHOTS
  ? path.join(REPO_ROOT, 'docs/screenshots')
  : mkdtempSync(path.join(tmpdir(), 'tai-more-shots-'));

const env = useInboxBrowser();

const REFUND = {
  name: 'payments.refund',
  summary: 'Refund 100 EUR',
  argumentsSchema: {
    type: 'object',
    properties: { order: { type: 'integer' }, amount: { type: 'integer' }, currency: { type: 'string' } },
  },
  editable: true,
};

describe('screenshots', () => {
  it('the keyboard help overlay, opened with ?', async () => {
    await ask(env.srv.url, { text: 'Freeze the deploys tonight?', format: 'CONFIRM' });
    await ask(env.srv.url, {
      text: 'Refund order 1182?',
      format: 'APPROVAL',
      action: { ...REFUND, arguments: { order: 1182, amount: 100, currency: 'EUR' } },
    });
    const w = await openPage(env.browser, { width: 1280, height: 800 });
    try {
      await signIn(w, env.srv.url, 'ops');
      await w.page.locator('article[data-question-id]', { hasText: 'Refund order 1182?' }).waitFor();
      await w.page.locator('body').press('?');
      const help = w.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.waitFor();
      expect(await help.locator('kbd').allTextContents()).toEqual(SHORTCUTS.map((s) => s.key));
      await w.page.screenshot({ path: path.join(SHOTS, 'shortcut-help.png') });
      await w.page.keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  }, 60_000);

  it('the history of an edited approval and of a policy decision', async () => {
    const edited = await ask(env.srv.url, {
      text: 'Refund order 51?',
      format: 'APPROVAL',
      action: { ...REFUND, arguments: { order: 51, amount: 100, currency: 'EUR' } },
    });
    await answerAs(env.srv.url, 'ops', edited.question.id, {
      decision: 'APPROVED',
      arguments: { order: 51, amount: 60, currency: 'EUR' },
      note: 'partial refund only: 40 EUR was a voucher',
    });
    const rule = await gql(
      env.srv.url,
      'admin',
      'mutation($i: PolicyRuleInput!) { putPolicyRule(input: $i) { id } }',
      { i: { id: 'deny-deletes', effect: 'DENY', match: { action: 'github.delete' } } },
    );
    expect(rule.errors).toBeUndefined();
    const ruled = await ask(env.srv.url, {
      text: 'Delete the repository acme/old-site?',
      format: 'APPROVAL',
      action: {
        name: 'github.delete',
        summary: 'Delete acme/old-site',
        arguments: { repo: 'acme/old-site' },
      },
    });
    expect(ruled.status).toBe('ANSWERED');

    const w = await openPage(env.browser, { width: 1280, height: 800 });
    try {
      await signIn(w, env.srv.url, 'ops');
      await w.page.getByRole('tab', { name: 'History' }).click();
      const story = w.page.locator(
        `article[data-question-id="${edited.question.id}"] [data-testid="approval-story"]`,
      );
      await story.getByText('Approved with changes').waitFor();
      await w.page
        .locator(`article[data-question-id="${ruled.question.id}"]`)
        .getByText('Decided by the policy rule deny-deletes, not by a person.')
        .waitFor();
      await w.page.screenshot({ path: path.join(SHOTS, 'history-approvals.png'), fullPage: true });
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  }, 60_000);
});
