// APPROVAL through the Teams channel (API.md §15): the real server on Redis, the loopback fake of
// the Microsoft endpoints, and card submits exactly as the Bot Framework posts them. The card shows
// the action and Approve / Reject; a submit decides (or votes, with a quorum); the card is replaced
// with the decision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlAt, manifestOf, startChannelServer } from '../support/channel-server.ts';
import { type FakeTeams, startFakeTeams, type TeamsCall } from '../support/fakes/teams-api.ts';
import { cardSubmit, TEAMS_USER, teamsChannelLines } from '../support/fakes/teams-requests.ts';
import type { TestServer } from '../support/server.ts';

const APP_ID = '00000000-0000-0000-0000-00000000b07b';
const PASSWORD = 'teams-approval-password-01';
let teams: FakeTeams;
let t: TestServer;
let base: string;

beforeAll(async () => {
  teams = await startFakeTeams(APP_ID, PASSWORD);
  const lines = teamsChannelLines(teams);
  const manifest = await manifestOf(lines, { TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: PASSWORD });
  t = await startChannelServer(manifest);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await teams?.close();
});

const gql = graphqlAt(() => base);
const SENDS = /^\/v3\/conversations\/[^/]+\/activities$/;
const UPDATES = /^\/v3\/conversations\/[^/]+\/activities\/[^/]+$/;
const BY = `ops-teams:${TEAMS_USER.aadObjectId}`;
const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) {
  callbackUrl question { id } } }`;

type Card = { body: Record<string, unknown>[]; actions?: Record<string, unknown>[] };
const cardOf = (c: TeamsCall) => (c.body.attachments as { content: Card }[])[0]!.content;
const lineOf = (c: TeamsCall) => (cardOf(c).body[1] as { inlines: { text: string }[] }).inlines[0]!.text;

async function ask(input: Record<string, unknown>) {
  const r = await gql(ASK, { input: { channel: 'ops-teams', format: 'APPROVAL', ...input } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const id = r.data!.askUser.question.id as string;
  const post = await teams.waitFor('POST', SENDS, (c) => JSON.stringify(c.body).includes(id));
  return { id, post, callbackUrl: r.data!.askUser.callbackUrl as string };
}

async function question(id: string) {
  const r = await gql(
    'query($id: ID!) { question(id: $id) { status answer answeredBy decision votes { by via decision } } }',
    { id },
    'ops',
  );
  return r.data!.question;
}

async function send(activity: unknown) {
  return fetch(`${base}/api/interactions/channels/ops-teams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await teams.token()}` },
    body: JSON.stringify(activity),
  });
}

describe('APPROVAL through Teams', () => {
  it('the card shows the action and its arguments; Approve approves the proposal and the card says so', async () => {
    const { id, post } = await ask({
      text: 'Refund the first order?',
      action: {
        name: 'payments.refund',
        summary: 'Refund ch_1',
        arguments: { charge: 'ch_1', amount: 100, meta: { reason: 'late' } },
      },
    });
    const card = cardOf(post);
    expect(card.body).toContainEqual({
      type: 'FactSet',
      facts: [
        { title: 'charge', value: 'ch_1' },
        { title: 'amount', value: '100' },
        { title: 'meta', value: '{"reason":"late"}' },
      ],
    });
    expect(card.actions!.map((a) => a.title)).toEqual(['Approve', 'Approve and allow for 1 hour', 'Reject']);
    expect((await send(cardSubmit(teams, { tai: 'a', q: id, i: 1 }))).status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      decision: 'APPROVED',
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 100, meta: { reason: 'late' } } },
      answeredBy: BY,
    });
    const update = await teams.waitFor('PUT', UPDATES, (c) =>
      JSON.stringify(c.body).includes('Refund the first order?'),
    );
    expect(lineOf(update)).toBe(`Answered by ${TEAMS_USER.name}: Approved`);
    expect(cardOf(update).actions).toBeUndefined();
    expect(JSON.stringify(cardOf(update).body)).toContain('payments.refund');
  });

  it('Reject rejects; an editable action links its answer page as "Edit on the web"', async () => {
    const schema = { type: 'object', properties: { table: { type: 'string' } }, required: ['table'] };
    const { id, post, callbackUrl } = await ask({
      text: 'Drop the table?',
      action: { name: 'db.drop', arguments: { table: 'users' }, argumentsSchema: schema, editable: true },
    });
    expect(cardOf(post).actions!.at(-1)).toEqual({
      type: 'Action.OpenUrl',
      title: 'Edit on the web',
      url: callbackUrl,
    });
    expect((await send(cardSubmit(teams, { tai: 'a', q: id, i: 0 }))).status).toBe(200);
    expect(await question(id)).toMatchObject({ decision: 'REJECTED', answer: { decision: 'REJECTED' } });
    const update = await teams.waitFor('PUT', UPDATES, (c) =>
      JSON.stringify(c.body).includes('Drop the table?'),
    );
    expect(lineOf(update)).toBe(`Answered by ${TEAMS_USER.name}: Rejected`);
  });

  it('"Approve and allow for 1 hour" approves and gives a grant: the same ask is then decided at once', async () => {
    const input = { text: 'Restart web?', action: { name: 'ops.restart-web', arguments: { pool: 'a' } } };
    const { id } = await ask(input);
    expect((await send(cardSubmit(teams, { tai: 'a', q: id, i: 2 }))).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', decision: 'APPROVED', answeredBy: BY });
    const again = await gql(
      `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { status } }`,
      { input: { channel: 'ops-teams', format: 'APPROVAL', ...input } },
    );
    expect(again.data!.askUser.status).toBe('ANSWERED');
  });

  it('an approve submit for another format, or an index other than 0/1/2, answers nothing', async () => {
    const confirm = await gql(ASK, {
      input: { channel: 'ops-teams', text: 'Plain yes/no?', format: 'CONFIRM' },
    });
    const confirmId = confirm.data!.askUser.question.id as string;
    await send(cardSubmit(teams, { tai: 'a', q: confirmId, i: 1 }));
    await teams.waitFor('POST', SENDS, (c) => String(c.body.text).startsWith('That answer was not accepted'));
    expect((await question(confirmId)).status).toBe('PENDING');
    const { id } = await ask({ text: 'Index two?', action: { name: 'x.y', arguments: {} } });
    expect((await send(cardSubmit(teams, { tai: 'a', q: id, i: 3 }))).status).toBe(400);
    expect((await question(id)).status).toBe('PENDING');
  });

  it('with a 2-of-2 quorum a submit is a vote: told in the thread, a second one refused, the inbox decides', async () => {
    const { id } = await ask({
      text: 'Rotate the keys?',
      action: { name: 'keys.rotate', arguments: { scope: 'all' } },
      quorum: { approvals: 2, rejections: 2, voters: [BY, 'ops'] },
    });
    expect((await send(cardSubmit(teams, { tai: 'a', q: id, i: 1 }))).status).toBe(200);
    await teams.waitFor('POST', SENDS, (c) => c.body.text === 'Your vote was recorded.');
    expect(await question(id)).toMatchObject({
      status: 'PENDING',
      votes: [{ by: BY, via: 'channel:ops-teams', decision: 'APPROVED' }],
    });
    expect((await send(cardSubmit(teams, { tai: 'a', q: id, i: 0 }))).status).toBe(200);
    await teams.waitFor('POST', SENDS, (c) => String(c.body.text).includes('already voted'));
    expect((await question(id)).votes).toHaveLength(1);
    const inbox = await gql(
      'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED"}) { status } }',
      { id },
      'ops',
    );
    expect(inbox.data!.answer.status).toBe('ANSWERED');
    const update = await teams.waitFor('PUT', UPDATES, (c) =>
      JSON.stringify(c.body).includes('Rotate the keys?'),
    );
    expect(lineOf(update)).toBe('Answered in the inbox by ops: Approved');
  });
});
