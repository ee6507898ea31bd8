// The phone answer page of an editable APPROVAL (API.md §15 "Every door renders it", §7) in real
// Chromium: the note typed on the page travels with every button, "Approve with these
// arguments" (clicked, or Enter in a field) included; "Approve as proposed" ignores whatever
// the fields hold; Reject keeps its note. Each press reaches the server as the page's own
// form-encoded post.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';
import { launchChromium } from './harness.ts';

const pager: ChannelPort = { names: () => new Set(['pager']), async deliver(_q: QuestionRecord) {} };

const schema = {
  type: 'object',
  properties: {
    charge: { type: 'string', title: 'Charge' },
    amount: { type: 'integer', title: 'Amount', maximum: 500 },
  },
  required: ['charge', 'amount'],
};

describe('the callback page of an editable APPROVAL, in Chromium', () => {
  let t: TestServer & { url: string };
  let browser: Browser;

  beforeAll(async () => {
    t = (await startServer({ store: 'memory', plugins: { channels: pager } })) as TestServer & {
      url: string;
    };
    await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function gql(query: string, variables: Record<string, unknown>) {
    const r = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { ...auth('agent'), 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response data is checked field by field.
    const body = (await r.json()) as { data: any; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  /** Asks an editable refund through the channel and opens its callback page. */
  async function openPage(): Promise<{ id: string; page: Page }> {
    const d = await gql(
      'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } callbackUrl } }',
      {
        i: {
          text: 'Refund?',
          format: 'APPROVAL',
          channel: 'pager',
          action: {
            name: 'payments.refund',
            arguments: { charge: 'ch_1', amount: 100 },
            argumentsSchema: schema,
            editable: true,
          },
        },
      },
    );
    const page = await browser.newPage();
    await page.goto(`${t.url}${new URL(d.askUser.callbackUrl).pathname}`);
    return { id: d.askUser.question.id as string, page };
  }

  const answerOf = async (id: string) =>
    (await gql('query($id: ID!) { question(id: $id) { status answer edited } }', { id })).question;

  it('Approve with these arguments keeps the note', async () => {
    const { id, page } = await openPage();
    await page.getByLabel('Note (optional)').fill('partial refund, agreed on the phone');
    await page.getByLabel('Amount').fill('40');
    await page.getByRole('button', { name: 'Approve with these arguments' }).click();
    await page.getByRole('heading', { name: 'Done' }).waitFor();
    expect(await answerOf(id)).toEqual({
      status: 'ANSWERED',
      edited: true,
      answer: {
        decision: 'APPROVED',
        arguments: { charge: 'ch_1', amount: 40 },
        note: 'partial refund, agreed on the phone',
      },
    });
    await page.close();
  });

  it('Enter in an edited field approves the edit, with the note', async () => {
    const { id, page } = await openPage();
    await page.getByLabel('Note (optional)').fill('by Enter');
    await page.getByLabel('Amount').fill('30');
    await page.getByLabel('Amount').press('Enter');
    await page.getByRole('heading', { name: 'Done' }).waitFor();
    expect((await answerOf(id)).answer).toEqual({
      decision: 'APPROVED',
      arguments: { charge: 'ch_1', amount: 30 },
      note: 'by Enter',
    });
    await page.close();
  });

  it('Approve as proposed approves the proposal whatever the fields hold (even an invalid one), with the note', async () => {
    const { id, page } = await openPage();
    await page.getByLabel('Note (optional)').fill('as asked');
    await page.getByLabel('Amount').fill('9000');
    await page.getByRole('button', { name: 'Approve as proposed' }).click();
    await page.getByRole('heading', { name: 'Done' }).waitFor();
    expect(await answerOf(id)).toEqual({
      status: 'ANSWERED',
      edited: false,
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 100 }, note: 'as asked' },
    });
    await page.close();
  });

  it('Reject keeps the note', async () => {
    const { id, page } = await openPage();
    await page.getByLabel('Note (optional)').fill('not this month');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('heading', { name: 'Done' }).waitFor();
    expect((await answerOf(id)).answer).toEqual({ decision: 'REJECTED', note: 'not this month' });
    await page.close();
  });
});
