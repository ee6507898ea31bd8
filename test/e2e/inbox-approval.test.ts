// APPROVAL questions in the inbox (API.md §15), in real headless Chromium against a real server
// on Redis: the action and its arguments as a table, "Edit" with the changed argument highlighted
// in place, the asker woken with exactly the edited arguments; and a quorum vote cast from the
// inbox that leaves the card pending with the vote shown, until a second voter decides.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerAs,
  askAndWait,
  buildInbox,
  card,
  launchChromium,
  openPage,
  type RunningServer,
  signIn,
  startInboxServer,
  unique,
  type Watched,
} from './harness.ts';

let browser: Awaited<ReturnType<typeof launchChromium>>;
let srv: RunningServer;
let w: Watched;

beforeAll(async () => {
  await buildInbox();
  [browser, srv] = await Promise.all([launchChromium(), startInboxServer()]);
  w = await openPage(browser);
  await signIn(w, srv.url, 'alice');
}, 60_000);

afterAll(async () => {
  expect(w?.dialogs).toEqual([]);
  await w?.close();
  await browser?.close();
  await srv?.close();
});

const schema = {
  type: 'object',
  required: ['charge', 'amount'],
  properties: {
    charge: { type: 'string', title: 'charge' },
    amount: { type: 'integer', title: 'amount', minimum: 1, maximum: 500 },
    meta: { type: 'object', title: 'meta', properties: { order: { type: 'integer', title: 'order' } } },
  },
};

describe('APPROVAL in the inbox', () => {
  it('shows the action and arguments; Edit highlights the change and sends exactly it', async () => {
    const text = unique('Refund the customer?');
    const asker = askAndWait(srv.url, {
      text,
      format: 'APPROVAL',
      audience: 'alice',
      action: {
        name: 'payments.refund',
        summary: 'Refund 100 EUR on ch_1',
        arguments: { charge: 'ch_1', amount: 100, meta: { order: 1042 } },
        argumentsSchema: schema,
        editable: true,
      },
    });
    const c = card(w.page, text);
    await c.waitFor();
    await c.locator('.action-name code').getByText('payments.refund').waitFor();
    expect(await c.locator('.action-summary').textContent()).toContain('Refund 100 EUR on ch_1');
    const table = c.locator('table.arguments').first();
    expect(await table.locator('tbody th').allTextContents()).toEqual(['charge', 'amount', 'meta']);
    // A nested value is shown as JSON.
    expect(JSON.parse((await table.locator('tbody tr').nth(2).locator('pre').textContent()) ?? '')).toEqual({
      order: 1042,
    });

    await c.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = c.locator('.approval-edit');
    await edit.locator('form.rjsf').waitFor();
    // Nothing changed yet: no row is highlighted.
    expect(await edit.locator('tr.arg-changed').count()).toBe(0);
    await edit.locator('input[id$="_amount"]').fill('40');
    const changed = edit.locator('tr.arg-changed');
    await changed.first().waitFor();
    expect(await changed.count()).toBe(1);
    expect(await changed.locator('th').textContent()).toBe('amount');
    expect(await changed.locator('input').inputValue()).toBe('40');
    expect(await changed.locator('del').textContent()).toBe('100');
    await c.getByLabel('Note (optional)').fill('partial refund');
    await edit.getByRole('button', { name: 'Approve with these arguments' }).click();

    const result = await asker;
    expect(result.status).toBe('ANSWERED');
    expect(result.answer).toEqual({
      decision: 'APPROVED',
      arguments: { charge: 'ch_1', amount: 40, meta: { order: 1042 } },
      note: 'partial refund',
    });
    await c.locator('.outcome').getByText('by you').waitFor();
  });

  it('a quorum vote from the inbox keeps the card pending with the vote shown; a second voter decides', async () => {
    const text = unique('Rotate every key?');
    const asker = askAndWait(srv.url, {
      text,
      format: 'APPROVAL',
      audience: 'alice',
      action: { name: 'keys.rotate', arguments: { scope: 'all' } },
      quorum: { approvals: 2, voters: ['alice', 'ops'] },
    });
    const c = card(w.page, text);
    await c.waitFor();
    await c.getByText('0 of 2 approvals · 0 of 1 rejections').waitFor();
    await c.getByLabel('Note (optional)').fill('looks right');
    await c.getByRole('button', { name: 'Approve', exact: true }).click();
    // Still pending: the vote shows, from the answer's reply or the UPDATED event.
    await c.getByText('1 of 2 approvals · 0 of 1 rejections').waitFor();
    const votes = c.getByRole('list', { name: 'Votes so far' });
    expect(await votes.textContent()).toContain('alice — looks right');
    expect(await c.getAttribute('data-status')).toBe('PENDING');

    const id = (await c.getAttribute('data-question-id')) ?? '';
    await answerAs(srv.url, 'ops', id, { decision: 'APPROVED' });
    const result = await asker;
    expect(result.status).toBe('ANSWERED');
    expect(result.answer).toEqual({ decision: 'APPROVED', arguments: { scope: 'all' } });
    await c.locator('.outcome').waitFor();
    expect(await c.getAttribute('data-status')).toBe('ANSWERED');
  });
});
