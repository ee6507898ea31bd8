// The callback pages name the question they are about (issue "inbox for people who decide all
// day", item 6): a choice link's confirm page, the TEXT and FORM pages, and the page a person's
// browser gets after posting; for an APPROVAL, "Approved with changes" when the arguments were
// edited. Never the answer given, and never for an EXTERNAL question, whose callback URL may sit
// with a third party.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const pager: ChannelPort = { names: () => new Set(['pager']), async deliver(_q: QuestionRecord) {} };
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };

describe('callback pages name their question', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory', plugins: { channels: pager } });
  });
  afterAll(() => t.close());

  async function ask(input: Record<string, unknown>): Promise<string> {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('agent'), 'content-type': 'application/json' },
      payload: {
        query: 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { callbackUrl } }',
        variables: { i: { channel: 'pager', ...input } },
      },
    });
    const body = r.json();
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return new URL(body.data.askUser.callbackUrl).pathname;
  }
  const get = async (url: string) => (await t.server.inject({ method: 'GET', url })).body;
  const post = (url: string, payload: string) =>
    t.server.inject({ method: 'POST', url, headers: FORM, payload });

  it('a choice link shows the question (escaped) above "Your answer", and the page after says it again', async () => {
    const url = await ask({
      text: 'Fail over to <us-east>?',
      format: 'SELECT',
      options: ['eu-west', 'us-east'],
    });
    const page = await get(`${url}?choice=1`);
    expect(page).toContain('<blockquote class="q">Fail over to &#60;us-east&#62;?</blockquote>');
    expect(page.indexOf('Fail over to')).toBeLessThan(page.indexOf('Your answer'));
    const done = await post(url, 'choice=1');
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain(
      '<h1>Done</h1><blockquote class="q">Fail over to &#60;us-east&#62;?</blockquote>',
    );
    expect(done.body).not.toContain('us-east</strong>');
  });

  it('TEXT and FORM pages name the question; a sensitive answer is never echoed after', async () => {
    const text = await ask({ text: 'Which ticket?', format: 'TEXT', sensitive: true });
    expect(await get(text)).toContain('<blockquote class="q">Which ticket?</blockquote>');
    const done = await post(text, 'answer=hunter2');
    expect(done.body).toContain('Which ticket?');
    expect(done.body).not.toContain('hunter2');
    const form = await ask({
      text: 'Your shipping address',
      format: 'FORM',
      schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    expect(await get(form)).toContain('<blockquote class="q">Your shipping address</blockquote>');
  });

  it('an APPROVAL: after an edit the page says "Approved with changes", after a plain approval "Approved"', async () => {
    const action = {
      name: 'payments.refund',
      arguments: { amount: 100 },
      argumentsSchema: { type: 'object', properties: { amount: { type: 'integer' } } },
      editable: true,
    };
    const edited = await ask({ text: 'Refund the customer?', format: 'APPROVAL', action });
    const r = await post(edited, 'decision=APPROVED&arg.amount=60');
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain(
      '<blockquote class="q">Refund the customer?</blockquote><p><strong>Approved with changes.</strong></p>',
    );
    expect(await get(edited)).toContain('Approved with changes.');
    const plain = await ask({
      text: 'Refund again?',
      format: 'APPROVAL',
      action: { ...action, editable: false },
    });
    const p = await post(plain, 'decision=APPROVED');
    expect(p.body).toContain('<p><strong>Approved.</strong></p>');
    const rejected = await ask({
      text: 'Refund once more?',
      format: 'APPROVAL',
      action: { ...action, editable: false },
    });
    expect((await post(rejected, 'decision=REJECTED')).body).toContain('<p><strong>Rejected.</strong></p>');
  });

  it('a very long question is cut; an EXTERNAL question is never shown on its page', async () => {
    const long = await ask({ text: `${'word '.repeat(300)}END`, format: 'CONFIRM' });
    const page = await get(long);
    expect(page).toContain('…</blockquote>');
    expect(page).not.toContain('END');
    const external = await ask({ text: 'Payment for order 7 (internal note)', format: 'EXTERNAL' });
    const ext = await get(external);
    expect(ext).toContain('<h1>Confirm</h1>');
    expect(ext).not.toContain('order 7');
  });
});
