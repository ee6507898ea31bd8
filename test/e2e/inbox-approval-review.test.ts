// Approval review at a glance (issue 44 item 2), in real headless Chromium at 390×844 and
// 1280×800 against a real server on Redis: the card shows the action's arguments in exactly one
// table; "Edit" turns that table's values into fields in place, a changed value highlighted with
// the proposal beside it and the agent's summary marked "proposed"; the note and the decision
// buttons sit below the table; an invalid value shows its error under its field, in the form
// card's style, and nothing is sent; the approved answer carries the edits. The card renders from
// the presentation object the channels use (API.md §23), so the presentedDigest the server
// records for the inbox's answer is the one every channel computes for the same rendering. And a
// settled card shows what became of the approved action (approved · run · succeeded).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { presentOn, type Surface } from '../../src/domain/presentation.ts';
import { presentedDigestOf } from '../../src/domain/presented-digest.ts';
import type { JsonObject } from '../../src/domain/question.ts';
import {
  answerAs,
  ask,
  askAndWait,
  card,
  gql,
  openPage,
  REPO_ROOT,
  seriousViolations,
  signIn,
  startInboxServer,
  unique,
  useInboxBrowser,
} from './harness.ts';

// Refreshed with INBOX_SCREENSHOTS=1, like the other inbox screenshots.
const SHOTS = process.env.INBOX_SCREENSHOTS
  ? path.join(REPO_ROOT, 'docs/screenshots')
  : mkdtempSync(path.join(tmpdir(), 'tai-approval-shots-'));

const env = useInboxBrowser();

const schema = {
  type: 'object',
  required: ['charge', 'amount'],
  properties: {
    charge: { type: 'string', title: 'charge' },
    amount: { type: 'integer', title: 'amount', minimum: 1, maximum: 500 },
    meta: { type: 'object', title: 'meta', properties: { order: { type: 'integer', title: 'order' } } },
  },
};

const ACTION = {
  name: 'payments.refund',
  summary: 'Refund 100 EUR on ch_1',
  arguments: { charge: 'ch_1', amount: 100, meta: { order: 1042 } },
};

/** The channels whose bounds this small action fits in: they show it whole, as the inbox does. */
const WHOLE_ON: readonly Surface[] = ['slack', 'teams', 'discord', 'telegram', 'email'];

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b).not.toBeNull();
  return b!;
}

const SIZES = [
  { name: 'phone', width: 390, height: 844, shot: 'approval-edit-phone.png' },
  { name: 'desk', width: 1280, height: 800, shot: 'approval-edit.png' },
] as const;

describe.each(SIZES)('approval review at $width×$height', (size) => {
  it('one table; Edit in place with the highlight and "proposed"; the error under its field; the edits approved', async () => {
    const w = await openPage(env.browser, { width: size.width, height: size.height });
    try {
      await signIn(w, env.srv.url, 'alice');
      const text = unique('Refund the customer?');
      const asker = askAndWait(env.srv.url, {
        text,
        format: 'APPROVAL',
        audience: 'alice',
        action: { ...ACTION, argumentsSchema: schema, editable: true },
      });
      const c = card(w.page, text);
      await c.locator('table.arguments').waitFor();
      const id = (await c.getAttribute('data-question-id')) ?? '';

      // Shown once, as a table, from the presentation object the channels use.
      const shown = presentOn('inbox', ACTION, ACTION.arguments);
      expect(await c.locator('table').count()).toBe(1);
      expect(await c.locator('.action-name code').textContent()).toBe(shown.name);
      expect(await c.locator('.action-summary').textContent()).toContain(shown.summary);
      expect(await c.locator('table.arguments tbody th').allTextContents()).toEqual(
        Object.keys(shown.arguments as JsonObject),
      );
      expect(await c.locator('.summary-proposed').count()).toBe(0);

      // Edit: the same table's values become fields, in the same order; still one table.
      await c.getByRole('button', { name: 'Edit', exact: true }).click();
      const table = c.locator('table.arguments-editing');
      await table.waitFor();
      expect(await c.locator('table').count()).toBe(1);
      expect(await table.locator('tbody > tr > th').allTextContents()).toEqual(['charge', 'amount', 'meta']);
      const amountRow = table.locator('tr[data-argument="amount"]');
      const amount = amountRow.getByLabel('amount');
      expect(await amount.inputValue()).toBe('100');
      expect(await c.locator('tr.arg-changed').count()).toBe(0);

      // The note and the buttons are below the table, not between it and the fields.
      const tableBox = await box(table);
      const noteBox = await box(c.getByLabel('Note (optional)'));
      const approveBox = await box(c.getByRole('button', { name: 'Approve with these arguments' }));
      expect(noteBox.y).toBeGreaterThanOrEqual(tableBox.y + tableBox.height);
      expect(approveBox.y).toBeGreaterThan(noteBox.y);

      // A change: its row highlighted with the proposal beside it, the summary marked "proposed".
      await amount.fill('40');
      await c.locator('tr.arg-changed[data-argument="amount"]').waitFor();
      expect(await c.locator('tr.arg-changed').count()).toBe(1);
      expect(await amountRow.locator('.arg-was').textContent()).toBe('proposed 100');
      expect(await amountRow.locator('.arg-was del').textContent()).toBe('100');
      await c.locator('.summary-proposed').waitFor();
      expect(await c.locator('.summary-proposed').textContent()).toBe('proposed');
      if (size.name === 'desk') {
        // Beside it at a desk (a phone may put it under the field).
        const field = await box(amount);
        const was = await box(amountRow.locator('.arg-was'));
        expect(was.x).toBeGreaterThanOrEqual(field.x + field.width);
      }
      await c.getByLabel('Note (optional)').fill('partial refund');
      await c.screenshot({ path: path.join(SHOTS, size.shot) });
      // Fields in a table, their labels for screen readers only: still accessible.
      expect(await seriousViolations(w.page)).toEqual([]);

      // An invalid value: the error under its field, red as on a FORM card; nothing is sent.
      await amount.fill('900');
      await c.getByRole('button', { name: 'Approve with these arguments' }).click();
      const error = amountRow.locator('.error-detail .text-danger');
      await error.waitFor();
      expect(await error.textContent()).toMatch(/500/);
      const errorBox = await box(error);
      const fieldBox = await box(amount);
      expect(errorBox.y).toBeGreaterThanOrEqual(fieldBox.y + fieldBox.height);
      const style = await error.evaluate((el) => ({
        color: getComputedStyle(el).color,
        list: getComputedStyle(el.parentElement as Element).listStyleType,
      }));
      expect(style).toEqual({ color: 'rgb(180, 35, 24)', list: 'none' });
      const still = await gql(env.srv.url, 'agent', 'query($id: ID!) { question(id: $id) { status } }', {
        id,
      });
      expect(still.data.question.status).toBe('PENDING');

      // Put right and approved: the answer carries the edits and the note.
      await amount.fill('40');
      await error.waitFor({ state: 'detached' });
      await c.getByRole('button', { name: 'Approve with these arguments' }).click();
      const edited = { charge: 'ch_1', amount: 40, meta: { order: 1042 } };
      const result = await asker;
      expect(result.status).toBe('ANSWERED');
      expect(result.answer).toEqual({ decision: 'APPROVED', arguments: edited, note: 'partial refund' });

      // The settled card: still one table, the approved values "changed from" the proposal.
      await c.locator('.outcome').getByText('by you').waitFor();
      expect(await c.locator('table').count()).toBe(1);
      expect(await c.locator('tr.arg-changed[data-argument="amount"] .arg-was').textContent()).toBe(
        'changed from 100',
      );
      expect(await c.locator('.outcome .decision-approved').textContent()).toBe('Approved with changes');

      // What the inbox showed is what every channel shows of the same action: one digest.
      const read = await gql(
        env.srv.url,
        'agent',
        'query($id: ID!) { question(id: $id) { presentedDigest } }',
        {
          id,
        },
      );
      const inbox = presentedDigestOf(presentOn('inbox', ACTION, edited));
      expect(read.data.question.presentedDigest).toBe(inbox);
      for (const surface of WHOLE_ON) {
        expect(presentedDigestOf(presentOn(surface, ACTION, edited)), surface).toBe(inbox);
      }
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  }, 90_000);
});

describe("the server's refusal of an edited argument", () => {
  it('shows under its field, and the put-right edit is approved', async () => {
    const w = await openPage(env.browser, { width: 1280, height: 800 });
    try {
      await signIn(w, env.srv.url, 'alice');
      const text = unique('Charge again?');
      // The page leaves `pattern` to the server (a regular expression from an agent is not run
      // in the page), so this refusal comes from the server, on the argument's field.
      const asker = askAndWait(env.srv.url, {
        text,
        format: 'APPROVAL',
        audience: 'alice',
        action: {
          name: 'payments.charge',
          arguments: { charge: 'ch_1', amount: 5 },
          argumentsSchema: {
            type: 'object',
            properties: { charge: { type: 'string', pattern: '^ch_[0-9]+$' }, amount: { type: 'integer' } },
          },
          editable: true,
        },
      });
      const c = card(w.page, text);
      await c.getByRole('button', { name: 'Edit', exact: true }).click();
      const charge = c.locator('table.arguments-editing tr[data-argument="charge"]');
      await charge.getByRole('textbox').fill('card 9');
      await c.getByRole('button', { name: 'Approve with these arguments' }).click();
      const error = charge.locator('.error-detail .text-danger');
      await error.waitFor();
      expect(await error.textContent()).not.toContain('answer.arguments');
      expect(await c.getByRole('alert').textContent()).toBe(
        'The answer was refused: see the field marked below.',
      );
      await charge.getByRole('textbox').fill('ch_9');
      await c.getByRole('button', { name: 'Approve with these arguments' }).click();
      const result = await asker;
      expect(result.answer).toEqual({ decision: 'APPROVED', arguments: { charge: 'ch_9', amount: 5 } });
    } finally {
      await w.close();
    }
  }, 60_000);
});

describe('a settled approval in the pending view', () => {
  it('shows what became of the action: approved · run · succeeded', async () => {
    let a = await startInboxServer();
    const w = await openPage(env.browser, { width: 1280, height: 800 });
    try {
      await signIn(w, a.url, 'alice');
      const text = unique('Restart the web pool?');
      const asked = await ask(a.url, {
        text,
        format: 'APPROVAL',
        audience: 'alice',
        action: { name: 'ops.restart', summary: 'Restart web', arguments: { pool: 'web' } },
      });
      const id = asked.question.id;
      const c = card(w.page, text);
      await c.getByRole('button', { name: 'Approve', exact: true }).waitFor();

      // The page loses its server (and its feed stays down); meanwhile, through another
      // instance on the same Redis, ops approves and the agent runs the action and reports.
      await w.page.route('**/graphql', (route) =>
        (route.request().headers().accept ?? '').includes('text/event-stream')
          ? route.abort()
          : route.fallback(),
      );
      await a.close();
      await w.page.locator('[data-testid="feed-status"][data-state="reconnecting"]').waitFor();
      const other = await startInboxServer({ prefix: a.prefix });
      try {
        await answerAs(other.url, 'ops', id, { decision: 'APPROVED' });
        const receipt = await gql(other.url, 'agent', 'query($id: ID!) { question(id: $id) { receipt } }', {
          id,
        });
        const consumed = await gql(
          other.url,
          'agent',
          'mutation($id: ID!, $r: String!) { consumeApproval(questionId: $id, receipt: $r) { id } }',
          { id, r: receipt.data.question.receipt },
        );
        expect(consumed.errors).toBeUndefined();
        const reported = await gql(
          other.url,
          'agent',
          'mutation($id: ID!) { reportExecution(questionId: $id, outcome: SUCCEEDED) { id } }',
          { id },
        );
        expect(reported.errors).toBeUndefined();
      } finally {
        await other.close();
      }
      a = await startInboxServer({ port: a.port, prefix: a.prefix });

      // The tap finds it answered: the card reads it again and settles with the run.
      await c.getByRole('button', { name: 'Approve', exact: true }).click();
      const line = c.getByTestId('execution-line');
      await line.waitFor();
      expect(await line.textContent()).toMatch(/^approved \d\d:\d\d · run \d\d:\d\d · succeeded$/);
      expect(await c.getAttribute('data-status')).toBe('ANSWERED');
      expect(await c.locator('.outcome .decision-approved').textContent()).toBe('Approved');
      expect(await c.locator('table').count()).toBe(1);
    } finally {
      await w.close();
      await a.close();
    }
  }, 60_000);
});
