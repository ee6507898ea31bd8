// APPROVAL through the Slack channel (API.md §15): the real server on Redis, the local fake of the
// Slack Web API, and interactivity requests signed as Slack signs them. The message shows the
// action and Approve / Reject; an editable flat schema gets a prefilled modal; and a 2-of-3
// quorum is voted from three places: a Slack click, the CLI and the inbox's door (GraphQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, APPROVAL_CALLBACK_ID, FIELD_ACTION, FIELD_PREFIX } from '../../src/channels/slack/blocks.ts';
import { graphqlAt, manifestOf, slackChannelLines, startChannelServer } from '../support/channel-server.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../support/fakes/slack.ts';
import { click, postSlack } from '../support/fakes/slack-requests.ts';
import { KEYS, type TestServer } from '../support/server.ts';

const TOKEN = 'xoxb-approval-token-0001';
const SIGNING = 'approval-signing-secret-01';
const USER = 'U024BE7LH';
let slack: FakeSlack;
let t: TestServer;
let base: string;

beforeAll(async () => {
  slack = await startFakeSlack(TOKEN);
  const manifest = await manifestOf(slackChannelLines(slack.apiUrl), {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SIGNING,
  });
  t = await startChannelServer(manifest);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await slack?.close();
});

const gql = graphqlAt(() => base);
const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }`;

async function ask(input: Record<string, unknown>): Promise<{ id: string; post: SlackCall }> {
  const r = await gql(ASK, {
    input: { channel: 'ops-slack', text: 'Refund?', format: 'APPROVAL', ...input },
  });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const id = r.data!.askUser.question.id as string;
  const post = await slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.args.blocks).includes(id));
  return { id, post };
}

async function question(id: string) {
  const r = await gql(
    'query($id: ID!) { question(id: $id) { status answer answeredBy decision edited votes { by via decision } } }',
    { id },
    'ops',
  );
  return r.data!.question;
}

async function interact(payload: unknown) {
  return postSlack(base, SIGNING, payload);
}

const schema = {
  type: 'object',
  properties: { charge: { type: 'string' }, amount: { type: 'integer', maximum: 500 } },
  required: ['charge', 'amount'],
};

describe('APPROVAL through Slack', () => {
  it('shows the action and its arguments; Approve approves the proposal and the message says so', async () => {
    const { id, post } = await ask({
      text: 'Refund the first order?',
      action: { name: 'payments.refund', summary: 'Refund ch_1', arguments: { charge: 'ch_1', amount: 100 } },
    });
    const blocks = JSON.stringify(post.args.blocks);
    expect(blocks).toContain('payments.refund');
    expect(blocks).toContain('\\"amount\\": 100');
    expect(blocks).toContain(`${ACTION.approve}_yes`);
    expect(blocks).toContain(`${ACTION.approve}_no`);
    expect(blocks).not.toContain(ACTION.openForm);
    expect((await interact(click(`${id}:1`, `${ACTION.approve}_yes`))).status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      decision: 'APPROVED',
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 100 } },
      answeredBy: `ops-slack:${USER}`,
    });
    const edit = await slack.waitFor('chat.update', (c) =>
      JSON.stringify(c.args.blocks).includes('Refund the first order?'),
    );
    expect(edit.args.text).toBe(`Answered by <@${USER}>: Approved`);
  });

  it('"Approve and allow for 1 hour" approves and gives a grant; a quorum question does not offer it', async () => {
    const action = { name: 'ops.restart', arguments: { pool: 'web' } };
    const { id, post } = await ask({ action });
    expect(JSON.stringify(post.args.blocks)).toContain('Approve and allow for 1 hour');
    expect((await interact(click(`${id}:2`, `${ACTION.approve}_hour`))).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', decision: 'APPROVED' });
    const again = await gql(
      `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { status question { answeredBy } } }`,
      { input: { channel: 'ops-slack', text: 'Refund?', format: 'APPROVAL', action } },
    );
    expect(again.data!.askUser.status).toBe('ANSWERED');
    expect(again.data!.askUser.question.answeredBy).toMatch(/^policy:grant-/);
    const quorum = await ask({ action: { name: 'ops.other', arguments: {} }, quorum: { approvals: 2 } });
    expect(JSON.stringify(quorum.post.args.blocks)).not.toContain(`${ACTION.approve}_hour`);
  });

  it('Reject rejects', async () => {
    const { id } = await ask({ action: { name: 'db.drop', arguments: { table: 'users' } } });
    expect((await interact(click(`${id}:0`, `${ACTION.approve}_no`))).status).toBe(200);
    expect(await question(id)).toMatchObject({ decision: 'REJECTED', answer: { decision: 'REJECTED' } });
  });

  it('an editable flat schema: the modal opens prefilled, and its submission approves the edit', async () => {
    const { id, post } = await ask({
      action: {
        name: 'payments.refund',
        arguments: { charge: 'ch_1', amount: 100 },
        argumentsSchema: schema,
        editable: true,
      },
    });
    expect(JSON.stringify(post.args.blocks)).toContain(ACTION.openForm);
    expect((await interact({ ...click(id, ACTION.openForm), trigger_id: 'trig.approval' })).status).toBe(200);
    const modal = await slack.waitFor('views.open', (c) => c.args.trigger_id === 'trig.approval');
    const view = JSON.stringify(modal.args.view);
    expect(view).toContain(APPROVAL_CALLBACK_ID);
    expect(view).toContain('"initial_value":"100"');
    expect(view).toContain('"initial_value":"ch_1"');
    const submission = {
      type: 'view_submission',
      user: { id: USER },
      view: {
        callback_id: APPROVAL_CALLBACK_ID,
        private_metadata: id,
        state: {
          values: {
            [`${FIELD_PREFIX}charge`]: { [FIELD_ACTION]: { type: 'plain_text_input', value: 'ch_1' } },
            [`${FIELD_PREFIX}amount`]: { [FIELD_ACTION]: { type: 'number_input', value: '60' } },
          },
        },
      },
    };
    expect((await interact(submission)).status).toBe(200);
    expect(await question(id)).toMatchObject({
      decision: 'APPROVED',
      edited: true,
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 60 } },
    });
  });

  it('2 of 3 voters from a Slack click, the CLI and the inbox door: the second approval decides', async () => {
    const { id } = await ask({
      action: { name: 'keys.rotate', arguments: { scope: 'all' } },
      quorum: { approvals: 2, rejections: 2, voters: [`ops-slack:${USER}`, 'ops', 'admin'] },
    });
    expect((await interact(click(`${id}:1`, `${ACTION.approve}_yes`))).status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'PENDING',
      votes: [{ by: `ops-slack:${USER}`, via: 'channel:ops-slack', decision: 'APPROVED' }],
    });
    // The same click again is a retry (API.md §15): a success that counts nothing.
    expect((await interact(click(`${id}:1`, `${ACTION.approve}_yes`))).status).toBe(200);
    expect((await question(id)).votes).toHaveLength(1);
    // Another vote by the same person is refused to them only, and changes nothing.
    const before = slack.callsTo('response_url').length;
    await interact({ ...click(`${id}:0`, `${ACTION.approve}_no`), response_url: slack.responseUrl });
    await slack.waitFor('response_url', () => slack.callsTo('response_url').length > before);
    expect(slack.callsTo('response_url').at(-1)!.args.text).toMatch(/already voted/);
    // The inbox's door (GraphQL as `ops`) rejects: still pending, one of two rejections.
    const rejected = await gql(
      'mutation($id: ID!) { answer(id: $id, answer: {decision: "REJECTED", note: "not now"}) { status } }',
      { id },
      'ops',
    );
    expect(rejected.data!.answer.status).toBe('PENDING');
    // The CLI approves as admin: two approvals decide.
    const cli = await runCliInProcess(['interactions', 'answer', id, '--approve', '--json'], {
      env: { TAI_URL: base, TAI_API_KEY: KEYS.admin },
    });
    expect(JSON.parse(cli.stdout)).toMatchObject({ status: 'ANSWERED', decision: 'APPROVED' });
    expect((await question(id)).votes.map((v: { by: string }) => v.by)).toEqual([
      `ops-slack:${USER}`,
      'ops',
      'admin',
    ]);
  });
  it('the person an action is requested for cannot approve or reject it from Slack (API.md §22); another door decides', async () => {
    const { id } = await ask({
      text: 'Refund requested by ana?',
      action: {
        name: 'payments.refund',
        arguments: { charge: 'ch_9', amount: 9 },
        requestedBy: `ops-slack:${USER}`,
      },
    });
    expect((await interact(click(`${id}:1`, `${ACTION.approve}_yes`))).status).toBe(200);
    // Reject is the one-step click: it meets the same check.
    expect((await interact(click(`${id}:0`, `${ACTION.approve}_no`))).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'PENDING', answeredBy: null });
    const r = await gql(
      'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED"}) { status } }',
      { id },
      'ops',
    );
    expect(r.errors).toBeUndefined();
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answeredBy: 'ops', decision: 'APPROVED' });
  });
});
