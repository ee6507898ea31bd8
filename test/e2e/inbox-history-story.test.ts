// The history tells an approval's story (issue 44 item 4), in real headless Chromium against a
// real server: an edited approval shows "Approved with changes" and each changed argument
// "changed from" its proposal, the note and the run (§23: approved · run · succeeded); a policy
// decision says a rule decided it, not a person; the signed receipt is one click away.
import { describe, expect, it } from 'vitest';
import { answerAs, ask, gql, openPage, signIn, useInboxBrowser } from './harness.ts';

const env = useInboxBrowser();

describe('the history of approvals', () => {
  it('shows an edit as "changed from", the note, the run and the receipt; a policy decision as a rule', async () => {
    const edited = await ask(env.srv.url, {
      text: 'Refund order 51?',
      format: 'APPROVAL',
      action: {
        name: 'payments.refund',
        summary: 'Refund 100 EUR',
        arguments: { order: 51, amount: 100 },
        argumentsSchema: {
          type: 'object',
          properties: { order: { type: 'integer' }, amount: { type: 'integer' } },
        },
        editable: true,
      },
    });
    await answerAs(env.srv.url, 'ops', edited.question.id, {
      decision: 'APPROVED',
      arguments: { order: 51, amount: 60 },
      note: 'partial refund only',
    });
    const receipt = await gql(env.srv.url, 'agent', 'query($id: ID!) { question(id: $id) { receipt } }', {
      id: edited.question.id,
    });
    const consumed = await gql(
      env.srv.url,
      'agent',
      'mutation($id: ID!, $r: String!) { consumeApproval(questionId: $id, receipt: $r) { id } }',
      { id: edited.question.id, r: receipt.data.question.receipt },
    );
    expect(consumed.errors).toBeUndefined();
    const reported = await gql(
      env.srv.url,
      'agent',
      'mutation($id: ID!) { reportExecution(questionId: $id, outcome: SUCCEEDED) { id } }',
      { id: edited.question.id },
    );
    expect(reported.errors).toBeUndefined();

    const rule = await gql(
      env.srv.url,
      'admin',
      'mutation($i: PolicyRuleInput!) { putPolicyRule(input: $i) { id } }',
      {
        i: { id: 'deny-deletes', effect: 'DENY', match: { action: 'github.delete' } },
      },
    );
    expect(rule.errors).toBeUndefined();
    const ruled = await ask(env.srv.url, {
      text: 'Delete the repo?',
      format: 'APPROVAL',
      action: { name: 'github.delete', arguments: { repo: 'x' } },
    });
    expect(ruled.status).toBe('ANSWERED');

    const w = await openPage(env.browser);
    try {
      await signIn(w, env.srv.url, 'ops');
      await w.page.getByRole('tab', { name: 'History' }).click();
      const story = w.page.locator(
        `article[data-question-id="${edited.question.id}"] [data-testid="approval-story"]`,
      );
      await story.waitFor();
      await story.getByText('Approved with changes').waitFor();
      expect(await story.locator('tr.arg-changed th').allTextContents()).toEqual(['amount']);
      expect(await story.locator('tr.arg-changed td').textContent()).toMatch(/^60changed from 100$/);
      expect(await story.getByText('Note: partial refund only').count()).toBe(1);
      const item = w.page.locator(`article[data-question-id="${edited.question.id}"]`);
      expect(await item.getByTestId('execution-line').count()).toBe(1);
      expect(await item.getByTestId('execution-line').textContent()).toMatch(
        /^approved \d\d:\d\d( [AP]M)? · run \d\d:\d\d( [AP]M)? · succeeded$/,
      );
      await story.getByRole('button', { name: 'Show the receipt' }).click();
      const jws = await story.getByLabel('Signed receipt').inputValue();
      expect(jws).toBe(receipt.data.question.receipt);

      const byRule = w.page.locator(`article[data-question-id="${ruled.question.id}"]`);
      await byRule.getByText('Decided by the policy rule deny-deletes, not by a person.').waitFor();
      expect(await byRule.locator('.outcome-line').textContent()).toContain('by policy rule deny-deletes');
      expect(await byRule.getByText('Rejected', { exact: true }).count()).toBe(1);
    } finally {
      await w.close();
    }
  }, 90_000);
});
