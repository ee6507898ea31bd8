// The callback page of a channel APPROVAL question (API.md §15, §7): GET shows the action and
// its arguments (escaped) with Approve / Reject and, for an editable flat schema, the prefilled
// edit form, and never changes anything; the buttons' posts record the decision, the note and
// the edited arguments; with a quorum the page's post is a vote by `callback`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const pager: ChannelPort = { names: () => new Set(['pager']), async deliver(_q: QuestionRecord) {} };
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };

const schema = {
  type: 'object',
  properties: {
    charge: { type: 'string', title: 'Charge' },
    amount: { type: 'integer', title: 'Amount', maximum: 500 },
    mode: { type: 'string', enum: ['full', 'partial'] },
  },
  required: ['charge', 'amount'],
};

describe('the callback page of an APPROVAL question', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory', plugins: { channels: pager } });
  });
  afterAll(() => t.close());

  async function gql(query: string, variables: Record<string, unknown>, who: 'agent' | 'ops' = 'agent') {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth(who), 'content-type': 'application/json' },
      payload: { query, variables },
    });
    const body = r.json();
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data;
  }

  async function ask(action: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const d = await gql(
      'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } callbackUrl } }',
      { i: { text: 'Refund?', format: 'APPROVAL', channel: 'pager', action, ...extra } },
    );
    return { id: d.askUser.question.id as string, url: new URL(d.askUser.callbackUrl).pathname };
  }
  const read = async (id: string) =>
    (
      await gql('query($id: ID!) { question(id: $id) { status answer decision edited votes { by via } } }', {
        id,
      })
    ).question;
  const post = (url: string, body: string) =>
    t.server.inject({ method: 'POST', url, headers: FORM, payload: body });

  it('GET shows the action, escaped, with both buttons and the prefilled edit form, and changes nothing', async () => {
    const q = await ask({
      name: 'payments.refund',
      summary: '<b>Refund</b> ch_1',
      arguments: { charge: 'ch_<1>', amount: 100, mode: 'full' },
      argumentsSchema: schema,
      editable: true,
    });
    const page = await t.server.inject({ method: 'GET', url: q.url });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('payments.refund');
    expect(page.body).not.toContain('<b>Refund</b>');
    expect(page.body).toContain('&#60;b&#62;Refund');
    expect(page.body).toContain('name="decision" value="APPROVED"');
    expect(page.body).toContain('name="decision" value="REJECTED"');
    expect(page.body).toContain('name="arg.amount" value="100"');
    expect(page.body).toContain('<option value="full" selected>');
    expect(page.body).not.toContain('<script');
    expect((await read(q.id)).status).toBe('PENDING');
  });

  it('the edit form approves the edited arguments; an invalid edit is not accepted and changes nothing', async () => {
    const q = await ask({
      name: 'payments.refund',
      arguments: { charge: 'ch_1', amount: 100 },
      argumentsSchema: schema,
      editable: true,
    });
    const bad = await post(q.url, 'arg.charge=ch_1&arg.amount=9000&decision=APPROVED');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Not accepted');
    expect((await read(q.id)).status).toBe('PENDING');
    const ok = await post(q.url, 'arg.charge=ch_1&arg.amount=40&arg.mode=partial&decision=APPROVED');
    expect(ok.statusCode).toBe(200);
    expect(await read(q.id)).toMatchObject({
      status: 'ANSWERED',
      decision: 'APPROVED',
      edited: true,
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 40, mode: 'partial' } },
    });
  });

  it('approve=as-proposed approves the proposal and ignores the fields; mixed with a decision it is not accepted', async () => {
    const q = await ask({
      name: 'payments.refund',
      arguments: { charge: 'ch_1', amount: 100 },
      argumentsSchema: schema,
      editable: true,
    });
    for (const body of [
      'arg.charge=ch_1&arg.amount=40&note=x&approve=as-proposed&decision=APPROVED',
      'arg.charge=ch_1&arg.amount=40&note=x&approve=yes',
    ]) {
      const bad = await post(q.url, body);
      expect(bad.statusCode, body).toBe(400);
      expect((await read(q.id)).status).toBe('PENDING');
    }
    const ok = await post(q.url, 'note=fine&arg.charge=ch_1&arg.amount=40&approve=as-proposed');
    expect(ok.statusCode).toBe(200);
    expect(await read(q.id)).toMatchObject({
      decision: 'APPROVED',
      edited: false,
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 100 }, note: 'fine' },
    });
  });

  it('Reject with a note; no edit form for an action that is not editable', async () => {
    const q = await ask({ name: 'db.drop', arguments: { table: 'users' } });
    const page = await t.server.inject({ method: 'GET', url: q.url });
    expect(page.body).not.toContain('Edit and approve');
    const r = await post(q.url, 'note=not+today&decision=REJECTED');
    expect(r.statusCode).toBe(200);
    expect(await read(q.id)).toMatchObject({
      decision: 'REJECTED',
      answer: { decision: 'REJECTED', note: 'not today' },
    });
  });

  it('with a quorum the post is a vote by callback; the question stays pending', async () => {
    const q = await ask({ name: 'keys.rotate', arguments: {} }, { quorum: { approvals: 2 } });
    const r = await post(q.url, 'decision=APPROVED');
    expect(r.statusCode).toBe(200);
    expect(await read(q.id)).toMatchObject({
      status: 'PENDING',
      votes: [{ by: 'callback', via: 'callback' }],
    });
    await gql(
      'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED"}) { id } }',
      { id: q.id },
      'ops',
    );
    expect((await read(q.id)).decision).toBe('APPROVED');
  });
});
