// A Teams card's submit answers only from where the card went (API.md §9.1, §17): an activity
// from another conversation carrying the card's value, or one sent through another Bot Framework
// channel (Web Chat), is answered 200, changes nothing and is written to the audit log as
// CALLBACK_REFUSED. The real server on Redis, the loopback fake of the Microsoft endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originMismatch } from '../../src/engine/deliveries/origin.ts';
import { graphqlAt, manifestOf, startChannelServer } from '../support/channel-server.ts';
import { type FakeTeams, startFakeTeams, TEAMS_TENANT } from '../support/fakes/teams-api.ts';
import {
  cardSubmit,
  installed,
  TEAMS_CONVERSATION,
  TEAMS_USER,
  teamsChannelLines,
} from '../support/fakes/teams-requests.ts';
import type { TestServer } from '../support/server.ts';

const APP_ID = '00000000-0000-0000-0000-00000000041a';
const PASSWORD = 'teams-origin-password-0001';
const OTHER_CONVERSATION = '19:another-team-channel@thread.tacv2';
const SENDS = /^\/v3\/conversations\/[^/]+\/activities$/;
const BY = `ops-teams:${TEAMS_USER.aadObjectId}`;
let teams: FakeTeams;
let t: TestServer;
let base: string;

beforeAll(async () => {
  teams = await startFakeTeams(APP_ID, PASSWORD);
  const lines = teamsChannelLines(teams);
  t = await startChannelServer(
    await manifestOf(lines, { TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: PASSWORD }),
  );
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await teams?.close();
});

const gql = graphqlAt(() => base);
const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }`;
const AUDIT = `query($id: ID!) { auditLog(filter: {questionId: $id, types: [CALLBACK_REFUSED]}) {
  edges { node { type questionId actor via detail } } } }`;

async function ask(input: Record<string, unknown>): Promise<string> {
  const r = await gql(ASK, { input: { channel: 'ops-teams', ...input } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const id = r.data!.askUser.question.id as string;
  await teams.waitFor('POST', SENDS, (c) => JSON.stringify(c.body).includes(id));
  return id;
}

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

async function refusals(id: string) {
  const r = await gql(AUDIT, { id }, 'admin');
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return (r.data!.auditLog.edges as { node: unknown }[]).map((e) => e.node);
}

async function send(activity: unknown): Promise<number> {
  const res = await fetch(`${base}/api/interactions/channels/ops-teams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await teams.token()}` },
    body: JSON.stringify(activity),
  });
  return res.status;
}

const refusal = (id: string, reason: string) => ({
  type: 'CALLBACK_REFUSED',
  questionId: id,
  actor: BY,
  via: 'channel:ops-teams',
  detail: { channel: 'ops-teams', reason },
});

describe('teams: a submit answers only from the card’s conversation, through Teams', () => {
  it('a submit from another conversation: 200, still pending, CALLBACK_REFUSED; the card’s own conversation still answers', async () => {
    const id = await ask({ text: 'Deploy to production?', format: 'CONFIRM' });
    const elsewhere = cardSubmit(
      teams,
      { tai: 'c', q: id, i: 1 },
      { conversation: { id: OTHER_CONVERSATION, conversationType: 'channel', tenantId: TEAMS_TENANT } },
    );
    expect(await send(elsewhere)).toBe(200);
    expect((await question(id)).status).toBe('PENDING');
    expect(await refusals(id)).toEqual([refusal(id, 'conversation')]);

    // The same person in the card's conversation answers it.
    expect(await send(cardSubmit(teams, { tai: 'c', q: id, i: 0 }))).toBe(200);
    expect(await question(id)).toEqual({ status: 'ANSWERED', answer: false, answeredBy: BY });
    expect(await refusals(id)).toHaveLength(1);
  });

  it('a Web Chat activity, even naming the card’s conversation: 200, still pending, CALLBACK_REFUSED, nothing said', async () => {
    const id = await ask({ text: 'Why did it fail?', format: 'TEXT' });
    const sends = teams.callsTo('POST', SENDS).length;
    const webchat = cardSubmit(
      teams,
      { tai: 't', q: id, tai_text: 'from web chat' },
      { channelId: 'webchat' },
    );
    expect(webchat.conversation.id).toBe(TEAMS_CONVERSATION);
    expect(await send(webchat)).toBe(200);
    expect((await question(id)).status).toBe('PENDING');
    expect(await refusals(id)).toEqual([refusal(id, 'channelId')]);
    // Web Chat's conversation is told nothing; an install there captures no conversation.
    expect(await send({ ...installed(teams, 'webchat-conversation-1'), channelId: 'webchat' })).toBe(200);
    expect(teams.callsTo('POST', SENDS)).toHaveLength(sends);
    expect(await send(cardSubmit(teams, { tai: 't', q: id, tai_text: 'from teams' }))).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: 'from teams' });
  });
});

describe('originMismatch', () => {
  const receipt = { conversation: 'c1', channelId: 'msteams', activity: '1:1' };
  it('names the first field that differs, `receipt` when nothing was delivered there, null when all match', () => {
    expect(originMismatch({ channelId: 'msteams', conversation: 'c1' }, receipt)).toBeNull();
    expect(originMismatch({ channelId: 'webchat', conversation: 'c2' }, receipt)).toBe('channelId');
    expect(originMismatch({ channelId: 'msteams', conversation: 'c2' }, receipt)).toBe('conversation');
    expect(originMismatch({ missing: 'x' }, receipt)).toBe('missing');
    expect(originMismatch({ conversation: 'c1' }, null)).toBe('delivery');
  });
});
