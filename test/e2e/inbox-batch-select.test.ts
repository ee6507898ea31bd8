// Deciding selected cards together (issue 44 item 3), in real headless Chromium against a real
// server: 20 approvals selected one by one and approved in one action, each recorded as its own
// answer with its own receipt; an editable approval and a TEXT question offer no checkbox; a
// batch Reject answers No / REJECTED. Nothing sleeps: every wait ends on a selector.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask, gql, openPage, REPO_ROOT, signIn, useInboxBrowser } from './harness.ts';

// Refreshed with INBOX_SCREENSHOTS=1, like the other inbox screenshots.
const SHOTS = process.env.INBOX_SCREENSHOTS
  ? path.join(REPO_ROOT, 'docs/screenshots')
  : mkdtempSync(path.join(tmpdir(), 'tai-batch-shots-'));

const env = useInboxBrowser();

const refund = (order: number) => ({
  text: `Refund order ${order}?`,
  format: 'APPROVAL',
  action: { name: 'payments.refund', arguments: { order, amount: 10 } },
});

async function read(id: string) {
  const r = await gql(
    env.srv.url,
    'ops',
    'query($id: ID!) { question(id: $id) { status answer answeredBy receipt } }',
    {
      id,
    },
  );
  return r.data.question as { status: string; answer: unknown; answeredBy: string; receipt: string | null };
}

describe('a batch of selected cards', () => {
  it('approves 20 selected approvals in one action, each its own answer with its own receipt', async () => {
    const asked = [];
    for (let i = 0; i < 20; i++) asked.push(await ask(env.srv.url, refund(3000 + i)));
    const editable = await ask(env.srv.url, {
      ...refund(3999),
      action: {
        name: 'payments.refund',
        arguments: { amount: 1 },
        argumentsSchema: { type: 'object', properties: { amount: { type: 'integer' } } },
        editable: true,
      },
    });
    const text = await ask(env.srv.url, { text: 'Why?', format: 'TEXT' });
    const w = await openPage(env.browser, { width: 1280, height: 800 });
    try {
      await signIn(w, env.srv.url, 'ops');
      const card = (id: string) => w.page.locator(`article[data-question-id="${id}"]`);
      await card(editable.question.id).waitFor();
      expect(await card(editable.question.id).locator('.select-card').count()).toBe(0);
      expect(await card(text.question.id).locator('.select-card').count()).toBe(0);
      // Two picked by hand, then the rest: "Select all" takes the cards the filter shows.
      for (const a of asked.slice(-2)) {
        await card(a.question.id).getByRole('checkbox', { name: 'Select for a batch decision' }).check();
      }
      const bar = w.page.getByRole('region', { name: 'Batch decision' });
      await bar.getByText('2 selected').waitFor();
      await w.page.getByLabel('Search').fill('Refund order 30');
      await w.page.getByTestId('filter-count').getByText('20 of 22 pending match').waitFor();
      await bar.getByRole('button', { name: 'Select all 20' }).click();
      await bar.getByText('20 selected').waitFor();
      await w.page.screenshot({ path: path.join(SHOTS, 'batch-select.png') });
      await bar.getByRole('button', { name: 'Approve 20' }).click();
      await w.page.getByTestId('batch-bar-status').getByText('All 20 approved.').waitFor();
      const receipts = new Set<string>();
      for (const a of asked) {
        const q = await read(a.question.id);
        expect(q).toMatchObject({ status: 'ANSWERED', answer: { decision: 'APPROVED' }, answeredBy: 'ops' });
        expect(q.receipt).toEqual(expect.any(String));
        receipts.add(q.receipt!);
      }
      expect(receipts.size).toBe(20);
      expect((await read(editable.question.id)).status).toBe('PENDING');
    } finally {
      await w.close();
    }
  }, 120_000);

  it('rejects the selected ones: CONFIRM gets No, APPROVAL REJECTED; Clear empties the selection', async () => {
    const confirm = await ask(env.srv.url, { text: 'Freeze the deploys?', format: 'CONFIRM' });
    const approval = await ask(env.srv.url, refund(4001));
    const spare = await ask(env.srv.url, refund(4002));
    const w = await openPage(env.browser, { width: 1280, height: 800 });
    try {
      await signIn(w, env.srv.url, 'ops');
      const box = (id: string) =>
        w.page
          .locator(`article[data-question-id="${id}"]`)
          .getByRole('checkbox', { name: 'Select for a batch decision' });
      await box(spare.question.id).check();
      const bar = w.page.getByRole('region', { name: 'Batch decision' });
      await bar.getByText('1 selected').waitFor();
      await bar.getByRole('button', { name: 'Clear' }).click();
      await bar.getByText('1 selected').waitFor({ state: 'detached' });
      expect(await box(spare.question.id).isChecked()).toBe(false);
      await box(confirm.question.id).check();
      await box(approval.question.id).check();
      await bar.getByRole('button', { name: 'Reject 2' }).click();
      await w.page.getByTestId('batch-bar-status').getByText('All 2 rejected.').waitFor();
      expect((await read(confirm.question.id)).answer).toBe(false);
      expect((await read(approval.question.id)).answer).toEqual({ decision: 'REJECTED' });
      expect((await read(spare.question.id)).status).toBe('PENDING');
    } finally {
      await w.close();
    }
  }, 90_000);
});
