// The teams plugin against a loopback fake of the Microsoft endpoints (OpenID metadata and keys,
// the token endpoint, the connector): Adaptive Cards per format, the Bot Framework JWT checked
// against a test key set, proactive messages, card updates after resolution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACTS_MAX } from '../../src/channels/teams/cards.ts';
import { teamsPlugin } from '../../src/channels/teams/plugin.ts';
import type { ChannelQuestion } from '../../src/channels/types.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeTeams, startFakeTeams, TEAMS_TENANT } from '../support/fakes/teams-api.ts';
import {
  cardSubmit,
  installed,
  TEAMS_CONVERSATION,
  TEAMS_USER,
  teamsRequest,
} from '../support/fakes/teams-requests.ts';

const APP_ID = '00000000-0000-0000-0000-00000000b07a';
const PASSWORD = 'teams-app-password-0001';
const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-abc';
let teams: FakeTeams;

beforeAll(async () => {
  teams = await startFakeTeams(APP_ID, PASSWORD);
});
afterAll(() => teams.close());

function channel(
  secrets: Record<string, string> = { TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: PASSWORD },
  extra = {},
) {
  const config = teamsPlugin.config.parse({
    appIdEnv: 'TEAMS_APP_ID',
    appPasswordEnv: 'TEAMS_APP_PASSWORD',
    defaultRecipient: TEAMS_CONVERSATION,
    openIdMetadataUrl: teams.openIdMetadataUrl,
    tokenUrl: teams.tokenUrl,
    serviceUrl: teams.serviceUrl,
    ...extra,
  });
  return teamsPlugin.create(config, channelContext('ops-teams', secrets));
}

const SENDS = /^\/v3\/conversations\/[^/]+\/activities$/;
const UPDATES = /^\/v3\/conversations\/[^/]+\/activities\/[^/]+$/;
type Card = { body: Record<string, unknown>[]; actions?: Record<string, unknown>[] };
const cardOf = (activity: Record<string, unknown>) =>
  (activity.attachments as { contentType: string; content: Card }[])[0]!;

async function delivered(q: ChannelQuestion) {
  const receipt = await channel().deliver(q, CALLBACK);
  const call = teams.callsTo('POST', SENDS).at(-1)!;
  expect(call.auth).toMatch(/^Bearer access-/);
  const attachment = cardOf(call.body);
  expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive');
  return { receipt, call, card: attachment.content };
}

const q = (over: Partial<ChannelQuestion>) => channelQuestion({ recipient: TEAMS_CONVERSATION, ...over });

describe('teams channel: delivery', () => {
  it('CONFIRM: a proactive card with Yes/No submits carrying the question id, the text as a plain run', async () => {
    const { receipt, call, card } = await delivered(q({ id: 'q_1', text: '**Ship** it? <at>everyone</at>' }));
    expect(call.path).toBe(`/v3/conversations/${encodeURIComponent(TEAMS_CONVERSATION)}/activities`);
    expect(receipt).toEqual({
      recipient: TEAMS_CONVERSATION,
      conversation: TEAMS_CONVERSATION,
      activity: expect.stringMatching(/^1:\d+$/),
      serviceUrl: teams.serviceUrl,
      channelId: 'msteams',
    });
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(card.body[0]).toEqual({
      type: 'RichTextBlock',
      inlines: [{ type: 'TextRun', text: '**Ship** it? <at>everyone</at>' }],
    });
    expect(card.actions).toEqual([
      { type: 'Action.Submit', title: 'Yes', data: { tai: 'c', q: 'q_1', i: 1 } },
      { type: 'Action.Submit', title: 'No', data: { tai: 'c', q: 'q_1', i: 0 } },
    ]);
    expect(JSON.stringify(call.body)).not.toContain('TICKET');
  });

  it('SELECT: up to 5 options are submits, more a choice set with one submit', async () => {
    const few = await delivered(q({ id: 'q_s', format: 'SELECT', options: ['a', 'b'] }));
    expect(few.card.actions!.map((a) => a.data)).toEqual([
      { tai: 's', q: 'q_s', i: 0 },
      { tai: 's', q: 'q_s', i: 1 },
    ]);
    const options = Array.from({ length: 40 }, (_, i) => `option ${i}`);
    const many = await delivered(q({ id: 'q_m', format: 'SELECT', options }));
    expect(many.card.body[1]).toMatchObject({ type: 'Input.ChoiceSet', id: 'tai_choice' });
    expect((many.card.body[1]!.choices as unknown[]).length).toBe(40);
    expect(many.card.actions).toEqual([
      { type: 'Action.Submit', title: 'Answer', data: { tai: 'm', q: 'q_m' } },
    ]);
  });

  it('TEXT and flat FORMs: inputs and a submit; other FORMs and EXTERNAL: OpenUrl', async () => {
    const text = await delivered(q({ id: 'q_t', format: 'TEXT' }));
    expect(text.card.body[1]).toMatchObject({ type: 'Input.Text', id: 'tai_text', isMultiline: true });
    const schema = {
      type: 'object',
      properties: {
        reason: { type: 'string' },
        count: { type: 'integer' },
        urgent: { type: 'boolean' },
        level: { enum: ['low', 'high'] },
      },
      required: ['reason'],
    };
    const form = await delivered(q({ id: 'q_f', format: 'FORM', schema }));
    expect(form.card.body.slice(1).map((b) => [b.type, b.id])).toEqual([
      ['Input.Text', 'f_0'],
      ['Input.Number', 'f_1'],
      ['Input.Toggle', 'f_2'],
      ['Input.ChoiceSet', 'f_3'],
    ]);
    expect(form.card.actions).toEqual([
      { type: 'Action.Submit', title: 'Submit', data: { tai: 'f', q: 'q_f' } },
      { type: 'Action.OpenUrl', title: 'Open in browser', url: CALLBACK },
    ]);
    const nested = { type: 'object', properties: { o: { type: 'object' } } };
    const deep = await delivered(q({ format: 'FORM', schema: nested }));
    expect(deep.card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open form', url: CALLBACK }]);
    const ext = await delivered(q({ format: 'EXTERNAL', link: 'https://pay.example/x' }));
    expect(ext.card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Open', url: 'https://pay.example/x' },
    ]);
  });

  it('APPROVAL: the action, its arguments as facts (JSON when nested), Approve / Reject, and "Edit on the web" when editable', async () => {
    const action = {
      name: 'payments.refund',
      summary: 'Refund **ch_1**',
      arguments: { charge: 'ch_1', amount: 100, meta: { by: 'agent', tags: ['a'] } },
      argumentsSchema: null,
      editable: false,
      digest: 'd',
    };
    const fixed = await delivered(q({ id: 'q_a', text: 'Refund?', format: 'APPROVAL', action }));
    expect(fixed.card.body.slice(1)).toEqual([
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'payments.refund', weight: 'bolder' }] },
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'Refund **ch_1**' }] },
      {
        type: 'FactSet',
        facts: [
          { title: 'charge', value: 'ch_1' },
          { title: 'amount', value: '100' },
          { title: 'meta', value: '{"by":"agent","tags":["a"]}' },
        ],
      },
    ]);
    expect(fixed.card.actions).toEqual([
      { type: 'Action.Submit', title: 'Approve', data: { tai: 'a', q: 'q_a', i: 1 } },
      { type: 'Action.Submit', title: 'Reject', data: { tai: 'a', q: 'q_a', i: 0 } },
    ]);
    const editable = await delivered(
      q({ id: 'q_e', format: 'APPROVAL', action: { ...action, summary: null, editable: true } }),
    );
    expect(editable.card.actions!.at(-1)).toEqual({
      type: 'Action.OpenUrl',
      title: 'Edit on the web',
      url: CALLBACK,
    });
    expect(editable.card.body.map((b) => b.type)).toEqual(['RichTextBlock', 'RichTextBlock', 'FactSet']);
  });

  it(`APPROVAL: ${FACTS_MAX} arguments are all facts; one more shows them as one JSON line (what presentedDigest digests)`, async () => {
    const args = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    const action = (n: number) => ({
      name: 'bulk.update',
      summary: null,
      arguments: args(n),
      argumentsSchema: null,
      editable: false,
      digest: 'd',
    });
    const at = await delivered(q({ format: 'APPROVAL', action: action(FACTS_MAX) }));
    expect((at.card.body.at(-1) as { facts: unknown[] }).facts).toHaveLength(FACTS_MAX);
    // A FactSet would leave one out: the card shows the arguments whole as its presentation does.
    const over = await delivered(q({ format: 'APPROVAL', action: action(FACTS_MAX + 1) }));
    expect(over.card.body.some((b) => (b as { type?: string }).type === 'FactSet')).toBe(false);
    expect(over.card.body.at(-1)).toEqual({
      type: 'RichTextBlock',
      inlines: [{ type: 'TextRun', text: JSON.stringify(args(FACTS_MAX + 1)) }],
    });
  });

  it('a connector error names its status, never the password; unset credentials say which variables', async () => {
    teams.failNext(403);
    await expect(channel().deliver(q({}), CALLBACK)).rejects.toThrow('teams send failed: HTTP 403');
    await expect(channel({}).deliver(q({}), CALLBACK)).rejects.toThrow(
      'the Teams app id or password (TEAMS_APP_ID, TEAMS_APP_PASSWORD) is not set',
    );
    await expect(
      channel({ TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: 'wrong' }).deliver(q({}), CALLBACK),
    ).rejects.toThrow('teams token request failed: HTTP 401');
  });

  it('recipients must be conversation ids', () => {
    expect(channel().checkRecipient!(TEAMS_CONVERSATION)).toBeNull();
    expect(channel().checkRecipient!('a:1pQ7-personal')).toBeNull();
    expect(channel().checkRecipient!('ops channel')).toMatch(/^must be a Teams conversation id/);
  });
});

describe('teams channel: incoming activities', () => {
  it('a Yes submit with a valid token answers CONFIRM as the user, deduplicated by the activity id', async () => {
    const activity = cardSubmit(teams, { tai: 'c', q: 'q_1', i: 1 });
    const ev = await channel().inbound!(await teamsRequest(teams, activity));
    if (ev.kind !== 'answer') throw new Error(JSON.stringify(ev));
    expect(ev.question).toEqual({ id: 'q_1' });
    expect(ev.by).toBe(TEAMS_USER.aadObjectId);
    expect(ev.dedupe).toEqual({ id: `activity:${activity.id}`, repeat: { status: 200 } });
    expect(ev.answer(q({ id: 'q_1' }))).toBe(true);
  });

  it('no token, a token from another key, another audience, issuer or service URL, or expired: 401', async () => {
    const c = channel();
    const activity = cardSubmit(teams, { tai: 'c', q: 'q_1', i: 1 });
    const req = await teamsRequest(teams, activity);
    expect(await c.inbound!({ ...req, headers: {} })).toMatchObject({ kind: 'reject', status: 401 });
    const tokens = [
      await teams.token({}, { key: 'other' }),
      await teams.token({}, { key: 'other', kid: 'unknown-kid' }),
      await teams.token({ aud: 'someone-else' }),
      await teams.token({ iss: 'https://evil.example' }),
      await teams.token({ serviceurl: 'https://evil.example/' }),
      await teams.token({}, { expiresIn: -600 }),
    ];
    for (const token of tokens) {
      const ev = await c.inbound!(await teamsRequest(teams, activity, { token }));
      expect(ev).toMatchObject({ kind: 'reject', status: 401 });
    }
    // One changed character of a valid token.
    const good = await teams.token();
    const at = good.length - 5;
    const changed = `${good.slice(0, at)}${good[at] === 'A' ? 'B' : 'A'}${good.slice(at + 1)}`;
    expect(await c.inbound!(await teamsRequest(teams, activity, { token: changed }))).toMatchObject({
      kind: 'reject',
      status: 401,
    });
    // A key endorsed for msteams does not sign activities of another channel.
    const slackish = { ...activity, channelId: 'slack' };
    expect(await c.inbound!(await teamsRequest(teams, slackish))).toMatchObject({
      kind: 'reject',
      status: 401,
    });
  });

  it('an unknown key id reads the key set again, at most once per cooldown', async () => {
    const c = channel();
    const activity = cardSubmit(teams, { tai: 'c', q: 'q_1', i: 1 });
    await c.inbound!(await teamsRequest(teams, activity));
    const before = teams.keyReads();
    for (let i = 0; i < 3; i++) {
      const token = await teams.token({}, { key: 'other', kid: `rotated-${i}` });
      expect(await c.inbound!(await teamsRequest(teams, activity, { token }))).toMatchObject({ status: 401 });
    }
    expect(teams.keyReads()).toBe(before);
  });

  it('OpenID metadata that cannot be read fails closed (500), and is not read again for every request', async () => {
    const c = channel(undefined, { openIdMetadataUrl: `${teams.serviceUrl}missing-metadata` });
    const req = await teamsRequest(teams, cardSubmit(teams, { tai: 'c', q: 'q_1', i: 1 }));
    const before = teams.callsTo('GET', /^\/missing-metadata$/).length;
    for (let i = 0; i < 3; i++) expect(await c.inbound!(req)).toMatchObject({ kind: 'reject', status: 500 });
    expect(teams.callsTo('GET', /^\/missing-metadata$/).length - before).toBe(1);
  });

  it('a missing app id fails closed (500); a tenant other than the configured one is 403', async () => {
    const req = await teamsRequest(teams, cardSubmit(teams, { tai: 'c', q: 'q_1', i: 1 }));
    expect(await channel({}).inbound!(req)).toMatchObject({ kind: 'reject', status: 500 });
    const other = channel(undefined, { tenantId: '11111111-2222-3333-4444-555555555555' });
    expect(await other.inbound!(req)).toMatchObject({ kind: 'reject', status: 403 });
    const same = channel(undefined, { tenantId: TEAMS_TENANT.toUpperCase() });
    expect(await same.inbound!(req)).toMatchObject({ kind: 'answer' });
  });

  it('SELECT, choice set, TEXT and FORM submits answer typed by the question', async () => {
    const c = channel();
    const answerOf = async (value: Record<string, unknown>, question: ChannelQuestion) => {
      const ev = await c.inbound!(await teamsRequest(teams, cardSubmit(teams, value)));
      if (ev.kind !== 'answer') throw new Error(ev.kind);
      return ev.answer(question);
    };
    const select = q({ id: 'q_s', format: 'SELECT', options: ['a', 'b', 'c'] });
    expect(await answerOf({ tai: 's', q: 'q_s', i: 2 }, select)).toBe('c');
    expect(await answerOf({ tai: 'm', q: 'q_s', tai_choice: '1' }, select)).toBe('b');
    expect(await answerOf({ tai: 't', q: 'q_t', tai_text: 'because' }, q({ format: 'TEXT' }))).toBe(
      'because',
    );
    const schema = {
      type: 'object',
      properties: {
        reason: { type: 'string' },
        count: { type: 'integer' },
        urgent: { type: 'boolean' },
        level: { enum: ['low', 3] },
      },
    };
    const form = q({ format: 'FORM', schema });
    expect(
      await answerOf({ tai: 'f', q: 'q_f', f_0: 'disk', f_1: '3', f_2: 'true', f_3: '1' }, form),
    ).toEqual({
      reason: 'disk',
      count: 3,
      urgent: true,
      level: 3,
    });
  });

  it('the install event captures the conversation: the bot says its id there, and later asks go to its service URL', async () => {
    const c = channel(undefined, { serviceUrl: 'https://smba.example/unused/' });
    const conversation = '19:captured@thread.tacv2';
    const ev = await c.inbound!(await teamsRequest(teams, installed(teams, conversation)));
    expect(ev).toEqual({ kind: 'ignore', response: { status: 200 } });
    const path = `/v3/conversations/${encodeURIComponent(conversation)}/activities`;
    const hello = await teams.waitFor('POST', SENDS, (call) => call.path === path);
    expect(hello.body.text).toContain(conversation);
    const receipt = await c.deliver(q({ recipient: conversation }), CALLBACK);
    expect(receipt.serviceUrl).toBe(teams.serviceUrl);
  });

  it('a refused answer is said in the thread; a recorded one says nothing (the card is replaced)', async () => {
    const c = channel();
    const ev = await c.inbound!(await teamsRequest(teams, cardSubmit(teams, { tai: 'c', q: 'q_1', i: 1 })));
    if (ev.kind !== 'answer') throw new Error(ev.kind);
    const before = teams.callsTo('POST', SENDS).length;
    const question = q({ id: 'q_1', status: 'ANSWERED', answer: false, answeredBy: 'ops' });
    expect(await ev.respond({ kind: 'recorded', question, delivery: null })).toEqual({ status: 200 });
    expect(teams.callsTo('POST', SENDS)).toHaveLength(before);
    expect(await ev.respond({ kind: 'closed', question, delivery: null })).toEqual({ status: 200 });
    const said = teams.callsTo('POST', SENDS).at(-1)!;
    expect(said.body).toMatchObject({
      type: 'message',
      text: 'This question was already answered.',
      textFormat: 'plain',
    });
  });

  it('unrelated activities are acknowledged; a malformed one is 400', async () => {
    const c = channel();
    const typing = { ...cardSubmit(teams, {}), type: 'typing', value: undefined };
    expect(await c.inbound!(await teamsRequest(teams, typing))).toEqual({
      kind: 'ignore',
      response: { status: 200 },
    });
    const req = await teamsRequest(teams, {});
    expect(await c.inbound!({ ...req, rawBody: Buffer.from('not json') })).toMatchObject({
      kind: 'reject',
      status: 400,
    });
  });
});

describe('teams channel: after resolution', () => {
  const receipt = () => ({
    conversation: TEAMS_CONVERSATION,
    activity: '1:77',
    serviceUrl: teams.serviceUrl,
  });

  it.each([
    [{ status: 'ANSWERED', answer: 'ok', answeredBy: 'ops' }, 'Answered in the inbox by ops'],
    [
      {
        status: 'ANSWERED',
        answer: true,
        answeredBy: `ops-teams:${TEAMS_USER.aadObjectId}`,
        format: 'CONFIRM',
      },
      `Answered by ${TEAMS_USER.aadObjectId}: Yes`,
    ],
    [{ status: 'ANSWERED', answer: 'secret', answeredBy: 'ops', sensitive: true }, 'Answered'],
    [{ status: 'CANCELLED', cancelReason: 'not needed' }, 'Cancelled: not needed'],
    [{ status: 'TIMED_OUT' }, 'Timed out'],
  ] as const)('replaces the card: %j → %s', async (over, line) => {
    await channel().onResolved!(q({ format: 'TEXT', ...(over as Partial<ChannelQuestion>) }), receipt());
    const update = teams.callsTo('PUT', UPDATES).at(-1)!;
    expect(update.path).toBe(`/v3/conversations/${encodeURIComponent(TEAMS_CONVERSATION)}/activities/1%3A77`);
    const card = cardOf(update.body).content;
    expect(card.actions).toBeUndefined();
    expect(card.body).toEqual([
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'Ship it?' }] },
      { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: line, weight: 'bolder' }] },
    ]);
    expect(JSON.stringify(update.body)).not.toContain('secret');
  });

  it('a failed update throws (the outbox retries it)', async () => {
    teams.failNext(502);
    await expect(channel().onResolved!(q({ status: 'TIMED_OUT' }), receipt())).rejects.toThrow(
      'teams update failed: HTTP 502',
    );
  });
});
