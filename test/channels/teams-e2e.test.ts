// The teams channel end to end: the real server on Redis with a manifest naming the channel, a
// loopback fake of the Microsoft endpoints (OpenID metadata with a test key set, token endpoint,
// connector), and activities exactly as the Bot Framework sends them, posted to the inbound door.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupChannel } from '../../src/app/channel-setup.ts';
import { TEAMS_INBOUND_MAX_BYTES } from '../../src/channels/teams/plugin.ts';
import { graphqlAt, manifestDir, manifestOf, startChannelServer } from '../support/channel-server.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { type FakeTeams, startFakeTeams, type TeamsCall } from '../support/fakes/teams-api.ts';
import {
  cardSubmit,
  installed,
  TEAMS_CONVERSATION,
  TEAMS_USER,
  teamsChannelLines,
} from '../support/fakes/teams-requests.ts';
import { leastLoopDelay } from '../support/loop-delay.ts';
import { KEYS, type TestServer } from '../support/server.ts';

const APP_ID = '00000000-0000-0000-0000-00000000b07a';
const PASSWORD = 'teams-e2e-password-0001';
let teams: FakeTeams;
let t: TestServer;
let base: string;
let lines: string[];

beforeAll(async () => {
  teams = await startFakeTeams(APP_ID, PASSWORD);
  lines = teamsChannelLines(teams);
  const manifest = await manifestOf(lines, { TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: PASSWORD });
  t = await startChannelServer(manifest);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await teams?.close();
});

const gql = graphqlAt(() => base);
const door = () => `${base}/api/interactions/channels/ops-teams`;
const SENDS = /^\/v3\/conversations\/[^/]+\/activities$/;
const UPDATES = /^\/v3\/conversations\/[^/]+\/activities\/[^/]+$/;
const BY = `ops-teams:${TEAMS_USER.aadObjectId}`;

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) {
  status callbackUrl question { id status recipient } } }`;

async function ask(input: Record<string, unknown>): Promise<{ id: string; post: TeamsCall }> {
  const r = await gql(ASK, { input: { channel: 'ops-teams', ...input } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const id = r.data!.askUser.question.id as string;
  const post = await teams.waitFor('POST', SENDS, (c) => JSON.stringify(c.body).includes(id));
  return { id, post };
}

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

async function send(activity: unknown, token?: string) {
  return fetch(door(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token ?? (await teams.token())}`,
    },
    body: JSON.stringify(activity),
  });
}

const updateOf = (text: string) => (c: TeamsCall) => JSON.stringify(c.body).includes(text);
const lineOf = (c: TeamsCall) =>
  (c.body.attachments as { content: { body: { inlines: { text: string }[] }[] } }[])[0]!.content.body[1]!
    .inlines[0]!.text;

describe('teams channel end to end (redis)', () => {
  it('`channelDetails` lists the channel, with an inbound door, ready', async () => {
    const r = await gql('{ channelDetails { name plugin inbound defaultRecipient ready missing } }');
    expect(r.data!.channelDetails).toEqual([
      {
        name: 'ops-teams',
        plugin: 'teams',
        inbound: true,
        defaultRecipient: TEAMS_CONVERSATION,
        ready: true,
        missing: [],
      },
    ]);
  });

  it('CONFIRM: a Yes submit answers as ops-teams:<user>, the card is replaced; a replay changes nothing', async () => {
    const { id, post } = await ask({ text: 'Ship it?', format: 'CONFIRM' });
    expect(post.path).toBe(`/v3/conversations/${encodeURIComponent(TEAMS_CONVERSATION)}/activities`);
    const submit = cardSubmit(teams, { tai: 'c', q: id, i: 1 });
    const res = await send(submit);
    expect(res.status).toBe(200);
    expect(await question(id)).toEqual({ status: 'ANSWERED', answer: true, answeredBy: BY });
    const update = await teams.waitFor('PUT', UPDATES, updateOf('Ship it?'));
    expect(lineOf(update)).toBe(`Answered by ${TEAMS_USER.name}: Yes`);
    // The same activity again (a retry, or a captured request): 200, nothing said, nothing changed.
    const sends = teams.callsTo('POST', SENDS).length;
    expect((await send(submit)).status).toBe(200);
    expect(teams.callsTo('POST', SENDS)).toHaveLength(sends);
    // A new No afterwards is refused in the thread.
    expect((await send(cardSubmit(teams, { tai: 'c', q: id, i: 0 }))).status).toBe(200);
    const said = await teams.waitFor(
      'POST',
      SENDS,
      (c) => c.body.text === 'This question was already answered.',
    );
    expect(said.body.replyToId).toBeDefined();
    expect(await question(id)).toMatchObject({ answer: true });
  });

  it('no token or a forged one is 401 and leaves the question pending', async () => {
    const { id } = await ask({ text: 'Forged?', format: 'CONFIRM' });
    const submit = cardSubmit(teams, { tai: 'c', q: id, i: 1 });
    const none = await fetch(door(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(submit),
    });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      error: 'the request signature is missing or not valid',
      code: 'UNAUTHENTICATED',
    });
    expect((await send(submit, await teams.token({}, { key: 'other' }))).status).toBe(401);
    expect((await send(submit, await teams.token({ aud: 'another-bot' }))).status).toBe(401);
    expect((await question(id)).status).toBe('PENDING');
  });

  it('SELECT of 12 (a choice set), TEXT and a flat FORM are answered by their submits', async () => {
    const options = Array.from({ length: 12 }, (_, i) => `option ${i}`);
    const select = await ask({ text: 'Which?', format: 'SELECT', options });
    await send(cardSubmit(teams, { tai: 'm', q: select.id, tai_choice: '11' }));
    expect(await question(select.id)).toMatchObject({ status: 'ANSWERED', answer: 'option 11' });

    const text = await ask({ text: 'Why?', format: 'TEXT' });
    await send(cardSubmit(teams, { tai: 't', q: text.id, tai_text: 'because' }));
    expect(await question(text.id)).toMatchObject({ status: 'ANSWERED', answer: 'because' });

    const schema = {
      type: 'object',
      properties: { reason: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
      required: ['reason', 'count'],
    };
    const form = await ask({ text: 'Details?', format: 'FORM', schema });
    await send(cardSubmit(teams, { tai: 'f', q: form.id, f_0: 'disk full', f_1: '0' }));
    await teams.waitFor('POST', SENDS, (c) => String(c.body.text).startsWith('That answer was not accepted'));
    expect((await question(form.id)).status).toBe('PENDING');
    await send(cardSubmit(teams, { tai: 'f', q: form.id, f_0: 'disk full', f_1: '3' }));
    expect(await question(form.id)).toMatchObject({
      status: 'ANSWERED',
      answer: { reason: 'disk full', count: 3 },
    });
  });

  it('answered in the inbox, cancelled, timed out: each replaces the card', async () => {
    const inbox = await ask({ text: 'Inbox answer?', format: 'CONFIRM' });
    await gql('mutation($id: ID!) { answer(id: $id, answer: true) { status } }', { id: inbox.id }, 'ops');
    expect(lineOf(await teams.waitFor('PUT', UPDATES, updateOf('Inbox answer?')))).toBe(
      'Answered in the inbox by ops',
    );

    const cancelled = await ask({ text: 'Cancel me?', format: 'CONFIRM' });
    await gql('mutation($id: ID!) { cancelQuestion(id: $id, reason: "not needed") { status } }', {
      id: cancelled.id,
    });
    expect(lineOf(await teams.waitFor('PUT', UPDATES, updateOf('Cancel me?')))).toBe('Cancelled: not needed');

    await ask({ text: 'Time me out?', format: 'CONFIRM', timeoutSeconds: 1 });
    expect(lineOf(await teams.waitFor('PUT', UPDATES, updateOf('Time me out?')))).toBe('Timed out');
  });

  it('a sensitive answer never reaches Teams', async () => {
    const { id } = await ask({ text: 'Your PIN?', format: 'TEXT', sensitive: true });
    await send(cardSubmit(teams, { tai: 't', q: id, tai_text: '4242' }));
    const update = await teams.waitFor('PUT', UPDATES, updateOf('Your PIN?'));
    expect(lineOf(update)).toBe('Answered');
    expect(JSON.stringify(teams.calls.filter((c) => c.method !== 'GET'))).not.toContain('4242');
  });

  it('the install event: the bot tells the conversation its id, which then works as a recipient', async () => {
    const conversation = '19:new-team-channel@thread.tacv2';
    expect((await send(installed(teams, conversation))).status).toBe(200);
    const hello = await teams.waitFor('POST', SENDS, (c) => String(c.body.text).includes(conversation));
    expect(hello.path).toBe(`/v3/conversations/${encodeURIComponent(conversation)}/activities`);
    const { post } = await ask({ text: 'There?', format: 'CONFIRM', recipient: conversation });
    expect(post.path).toBe(hello.path);
  });

  it('a connector error is CHANNEL_DELIVERY_FAILED; a bad recipient BAD_USER_INPUT', async () => {
    teams.failNext(403);
    const r = await gql(ASK, {
      input: { channel: 'ops-teams', text: 'Nobody hears this', format: 'CONFIRM' },
    });
    expect(r.errors?.[0]?.extensions.code).toBe('CHANNEL_DELIVERY_FAILED');
    expect(r.errors?.[0]?.message).not.toContain(PASSWORD);
    const bad = await gql(ASK, {
      input: { channel: 'ops-teams', recipient: 'ops channel', text: 'x', format: 'CONFIRM' },
    });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.recipient' });
  });

  it('`tai channels setup`: prints the manifest values and the messaging endpoint, never the password', async () => {
    const env = {
      TEAMS_APP_ID: APP_ID,
      TEAMS_APP_PASSWORD: PASSWORD,
      INTERACTIONS_PUBLIC_BASE_URL: 'https://tai.example',
    };
    const quiet = { info() {}, warn() {}, error() {} };
    const out = await setupChannel('ops-teams', env, manifestDir(lines.join('\n')), quiet);
    expect(out).toBe(
      [
        'Teams app manifest values for ops-teams:',
        `  bots[0].botId: ${APP_ID}`,
        '  bots[0].scopes: ["personal", "team", "groupChat"]',
        '  validDomains: ["tai.example"]',
        'Azure Bot messaging endpoint: https://tai.example/api/interactions/channels/ops-teams',
      ].join('\n'),
    );
    expect(out).not.toContain(PASSWORD);
  });

  it('no forged request at the size cap blocks the event loop more than 50 ms', async () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `"${i.toString(36)}":0`);
    const body = `{${keys.join(',')}}`.slice(0, TEAMS_INBOUND_MAX_BYTES);
    expect(Buffer.byteLength(body)).toBe(TEAMS_INBOUND_MAX_BYTES);
    // A well-formed token from a key not in the set, and one whose header is garbage.
    const forgedToken = await teams.token({}, { key: 'other' });
    for (const token of [forgedToken, `${'A'.repeat(4000)}.${'B'.repeat(3000)}.C`]) {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const forged = () =>
        t.server.inject({
          method: 'POST',
          url: '/api/interactions/channels/ops-teams',
          headers,
          payload: body,
        });
      expect((await forged()).statusCode).toBe(401);
      const delay = await leastLoopDelay(async () => {
        expect((await forged()).statusCode).toBe(401);
      }, 50);
      expect(delay).toBeLessThan(50);
    }
  });

  it('a submit of exactly TEAMS_INBOUND_MAX_BYTES is answered; one byte more is 413 and changes nothing', async () => {
    const { id } = await ask({ text: 'Long answer?', format: 'TEXT' });
    /** A submit whose body is `size` bytes: the activity's own text (Teams sends the card's) padded. */
    const submitOf = (size: number) => {
      const submit = cardSubmit(teams, { tai: 't', q: id, tai_text: 'long' }, { text: '' });
      const bare = Buffer.byteLength(JSON.stringify(submit));
      return { ...submit, text: 'a'.repeat(size - bare) };
    };
    const over = submitOf(TEAMS_INBOUND_MAX_BYTES + 1);
    expect(Buffer.byteLength(JSON.stringify(over))).toBe(TEAMS_INBOUND_MAX_BYTES + 1);
    expect((await send(over)).status).toBe(413);
    expect((await question(id)).status).toBe('PENDING');
    const at = submitOf(TEAMS_INBOUND_MAX_BYTES);
    expect(Buffer.byteLength(JSON.stringify(at))).toBe(TEAMS_INBOUND_MAX_BYTES);
    expect((await send(at)).status).toBe(200);
    expect((await question(id)).status).toBe('ANSWERED');
  });

  it('`tai channels test`: the test message arrives, then is edited to "Cancelled: test message"', async () => {
    const r = await runCliInProcess(['channels', 'test', 'ops-teams', '--json'], {
      env: { TAI_URL: base, TAI_API_KEY: KEYS.agent },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const edit = await teams.waitFor('PUT', UPDATES, (c) =>
      JSON.stringify(c.body).includes('channel ops-teams reaches you'),
    );
    expect(JSON.stringify(edit.body)).toContain('Cancelled: test message');
  });
});
