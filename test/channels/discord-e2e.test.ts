// The discord channel end to end: the real server on Redis with a manifest naming the channel,
// a loopback fake of Discord's REST API, and interactions exactly as Discord sends them, signed
// with the application's Ed25519 key, posted to the channel's inbound door.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupChannel } from '../../src/app/channel-setup.ts';
import { DISCORD_INBOUND_MAX_BYTES } from '../../src/channels/discord/plugin.ts';
import { graphqlAt, manifestDir, manifestOf, startChannelServer } from '../support/channel-server.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { type DiscordCall, type FakeDiscord, startFakeDiscord } from '../support/fakes/discord-api.ts';
import {
  componentClick,
  DISCORD_APP,
  DISCORD_CHANNEL,
  DISCORD_USER,
  modalSubmit,
  ping,
} from '../support/fakes/discord-requests.ts';
import { leastLoopDelay } from '../support/loop-delay.ts';
import { KEYS, type TestServer } from '../support/server.ts';

const TOKEN = 'discord-e2e-token-0001';
let discord: FakeDiscord;
let t: TestServer;
let base: string;
let lines: string[];

beforeAll(async () => {
  discord = await startFakeDiscord(TOKEN);
  lines = [
    'channels:',
    '  ops-discord:',
    '    plugin: discord',
    '    config:',
    '      botTokenEnv: DISCORD_BOT_TOKEN',
    `      publicKey: "${discord.publicKey}"`,
    `      applicationId: "${DISCORD_APP}"`,
    `      defaultRecipient: "${DISCORD_CHANNEL}"`,
    `      apiUrl: ${discord.apiUrl}`,
  ];
  const manifest = await manifestOf(lines, { DISCORD_BOT_TOKEN: TOKEN });
  t = await startChannelServer(manifest);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await discord?.close();
});

const gql = graphqlAt(() => base);
const door = () => `${base}/api/interactions/channels/ops-discord`;
const MESSAGES = /^\/channels\/\d+\/messages$/;
const EDITS = /^\/channels\/\d+\/messages\/\d+$/;

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) {
  status callbackUrl question { id status recipient } } }`;

async function ask(input: Record<string, unknown>): Promise<{ id: string; post: DiscordCall }> {
  const r = await gql(ASK, { input: { channel: 'ops-discord', ...input } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const id = r.data!.askUser.question.id as string;
  const post = await discord.waitFor('POST', MESSAGES, (c) => JSON.stringify(c.body.components).includes(id));
  return { id, post };
}

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

/** Posts an interaction to the inbound door as Discord would; `body` overrides the signed bytes. */
async function interact(
  interaction: unknown,
  opts: { body?: string; headers?: Record<string, string> } = {},
) {
  const signed = JSON.stringify(interaction);
  return fetch(door(), {
    method: 'POST',
    headers: { ...discord.signer.headers(signed), ...opts.headers },
    body: opts.body ?? signed,
  });
}

const editOf = (text: string) => (c: DiscordCall) => String(c.body.content).startsWith(text);

describe('discord channel end to end (redis)', () => {
  it('APPROVAL: the action in the message, Approve / Reject buttons and the answer page; Approve approves', async () => {
    const { id, post } = await ask({
      text: 'Refund order 99?',
      format: 'APPROVAL',
      action: { name: 'payments.refund', summary: 'Refund 100', arguments: { charge: 'ch_1', amount: 100 } },
    });
    const body = post.body as { content: string; components: { components: { label: string }[] }[] };
    expect(body.content).toContain('payments\\.refund'); // markdown-escaped
    expect(body.content).toMatch(/amount\S*:100/);
    expect(body.components[0]!.components.map((c) => c.label)).toEqual([
      'Approve',
      'Approve and allow for 1 hour',
      'Reject',
      'Details',
    ]);
    const res = await interact(componentClick(`tai:c:${id}:1`));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      type: 7,
      data: { content: expect.stringContaining(': Approved') },
    });
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 100 } },
      answeredBy: `ops-discord:${DISCORD_USER}`,
    });
  });

  it('APPROVAL: "Approve and allow for 1 hour" approves and gives a grant that decides the same ask', async () => {
    const input = {
      text: 'Restart?',
      format: 'APPROVAL',
      action: { name: 'ops.restart', arguments: { pool: 'a' } },
    };
    const { id } = await ask(input);
    expect((await interact(componentClick(`tai:c:${id}:2`))).status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answeredBy: `ops-discord:${DISCORD_USER}`,
    });
    const again = await gql(
      `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { status } }`,
      { input: { ...input, channel: 'ops-discord' } },
    );
    expect(again.data!.askUser.status).toBe('ANSWERED');
  });

  it('APPROVAL, editable with a flat schema: Edit and approve opens a prefilled modal; its submission approves the edit', async () => {
    const schema = {
      type: 'object',
      properties: {
        charge: { type: 'string' },
        amount: { type: 'integer', maximum: 500 },
        notify: { type: 'boolean' },
      },
      required: ['charge', 'amount'],
    };
    const { id, post } = await ask({
      text: 'Refund order 7?',
      format: 'APPROVAL',
      action: {
        name: 'payments.refund',
        arguments: { charge: 'ch_7', amount: 100, notify: true },
        argumentsSchema: schema,
        editable: true,
      },
    });
    const body = post.body as { components: { components: { label: string; custom_id?: string }[] }[] };
    expect(body.components[0]!.components.map((c) => c.label)).toEqual([
      'Approve',
      'Approve and allow for 1 hour',
      'Reject',
      'Edit and approve',
      'Edit in browser',
    ]);
    const open = await interact(componentClick(`tai:f:${id}`));
    const modal = (await open.json()) as {
      type: number;
      data: { custom_id: string; title: string; components: { components: Record<string, unknown>[] }[] };
    };
    expect(modal).toMatchObject({ type: 9, data: { custom_id: `tai:x:${id}`, title: 'Edit and approve' } });
    expect(modal.data.components.map((r) => [r.components[0]!.custom_id, r.components[0]!.value])).toEqual([
      ['f:0', 'ch_7'],
      ['f:1', '100'],
      ['f:2', 'yes'],
    ]);
    expect((await question(id)).status).toBe('PENDING');
    // An edit outside the schema is told privately and changes nothing.
    const bad = await interact(modalSubmit(`tai:x:${id}`, { 'f:0': 'ch_7', 'f:1': '501', 'f:2': 'yes' }));
    expect(((await bad.json()) as { data: { content: string } }).data.content).toMatch(
      /^That answer was not accepted: /,
    );
    expect((await question(id)).status).toBe('PENDING');
    const res = await interact(modalSubmit(`tai:x:${id}`, { 'f:0': 'ch_7', 'f:1': '60', 'f:2': 'no' }));
    expect(await res.json()).toMatchObject({
      type: 7,
      data: { content: expect.stringContaining(': Approved') },
    });
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_7', amount: 60, notify: false } },
      answeredBy: `ops-discord:${DISCORD_USER}`,
    });
  });

  it('APPROVAL: a flat schema of 5 fields gets the modal; 6, or an action not editable, only the answer page', async () => {
    const schemaOf = (n: number) => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { type: 'string' }])),
    });
    const labels = async (n: number, editable: boolean) => {
      const args = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
      const { post } = await ask({
        text: `Fields ${n} ${editable}?`,
        format: 'APPROVAL',
        action: { name: 'bulk.set', arguments: args, argumentsSchema: schemaOf(n), editable },
      });
      const body = post.body as { components: { components: { label: string }[] }[] };
      return body.components[0]!.components.map((c) => c.label);
    };
    expect(await labels(5, true)).toEqual([
      'Approve',
      'Approve and allow for 1 hour',
      'Reject',
      'Edit and approve',
      'Edit in browser',
    ]);
    expect(await labels(6, true)).toEqual([
      'Approve',
      'Approve and allow for 1 hour',
      'Reject',
      'Edit in browser',
    ]);
    expect(await labels(5, false)).toEqual(['Approve', 'Approve and allow for 1 hour', 'Reject', 'Details']);
  });

  it('`channelDetails` lists the channel, with an inbound door, ready', async () => {
    const r = await gql('{ channelDetails { name plugin inbound defaultRecipient ready missing } }');
    expect(r.data!.channelDetails).toEqual([
      {
        name: 'ops-discord',
        plugin: 'discord',
        inbound: true,
        defaultRecipient: DISCORD_CHANNEL,
        ready: true,
        missing: [],
      },
    ]);
  });

  it('PING is PONG; an unsigned PING and a body changed after signing are 401', async () => {
    const pong = await interact(ping());
    expect(pong.status).toBe(200);
    expect(await pong.json()).toEqual({ type: 1 });
    const unsigned = await fetch(door(), { method: 'POST', body: JSON.stringify(ping()) });
    expect(unsigned.status).toBe(401);
    const p = ping();
    const changed = await interact(p, { body: JSON.stringify({ ...p, type: 2 }) });
    expect(changed.status).toBe(401);
  });

  it('CONFIRM: a Yes click answers as ops-discord:<user> and updates the message; a replay changes nothing', async () => {
    const { id, post } = await ask({ text: 'Ship it?', format: 'CONFIRM' });
    expect(post.auth).toBe(`Bot ${TOKEN}`);
    const click = componentClick(`tai:c:${id}:1`);
    const res = await interact(click);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      type: 7,
      data: { content: `Ship it?\n\nAnswered by <@${DISCORD_USER}>: Yes`, components: [] },
    });
    expect(await question(id)).toEqual({
      status: 'ANSWERED',
      answer: true,
      answeredBy: `ops-discord:${DISCORD_USER}`,
    });
    // The same signed request sent again: acknowledged, nothing claimed, nothing said.
    const replay = await interact(click);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ type: 6 });
    // A new click of No afterwards shows the outcome instead; the answer stays.
    const no = await interact(componentClick(`tai:c:${id}:0`));
    expect(await no.json()).toMatchObject({
      type: 7,
      data: { content: expect.stringContaining('Answered by') },
    });
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
    const edit = await discord.waitFor('PATCH', EDITS, editOf('Ship it?'));
    expect(edit.body.components).toEqual([]);
  });

  it('a replay of a click refused as invalid still answers nothing when the question is open', async () => {
    const { id } = await ask({ text: 'Pick one', format: 'SELECT', options: ['a', 'b'] });
    const bogus = componentClick(`tai:s:${id}:7`);
    expect(await (await interact(bogus)).json()).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(await (await interact(bogus)).json()).toEqual({ type: 6 });
    const b = await interact(componentClick(`tai:s:${id}:1`));
    expect(b.status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: 'b' });
  });

  it('SELECT of 30 options: two menus; a choice in the second answers', async () => {
    const options = Array.from({ length: 30 }, (_, i) => `option ${i}`);
    const { id, post } = await ask({ text: 'Which of many?', format: 'SELECT', options });
    expect(post.body.components).toHaveLength(2);
    const res = await interact(componentClick(`tai:m:${id}:1`, { values: ['27'] }));
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: 'option 27' });
  });

  it('TEXT: the button opens a modal, its submission answers', async () => {
    const { id } = await ask({ text: 'Why?', format: 'TEXT' });
    const open = await interact(componentClick(`tai:t:${id}`));
    expect(await open.json()).toMatchObject({ type: 9, data: { custom_id: `tai:x:${id}` } });
    expect((await question(id)).status).toBe('PENDING');
    const res = await interact(modalSubmit(`tai:x:${id}`, { v: 'because' }));
    expect(await res.json()).toMatchObject({ type: 7 });
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: 'because' });
  });

  it('FORM: the modal submission is validated against the schema; a bad one is told privately', async () => {
    const schema = {
      type: 'object',
      properties: { reason: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
      required: ['reason', 'count'],
    };
    const { id } = await ask({ text: 'Details?', format: 'FORM', schema });
    const bad = await interact(modalSubmit(`tai:x:${id}`, { 'f:0': 'disk full', 'f:1': 'lots' }));
    const refused = (await bad.json()) as { type: number; data: { content: string; flags: number } };
    expect(refused.type).toBe(4);
    expect(refused.data.flags).toBe(64);
    expect(refused.data.content).toMatch(/^That answer was not accepted: /);
    expect((await question(id)).status).toBe('PENDING');
    await interact(modalSubmit(`tai:x:${id}`, { 'f:0': 'disk full', 'f:1': '3' }));
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: { reason: 'disk full', count: 3 },
    });
  });

  it('answered in the inbox, cancelled, timed out: each edits the Discord message', async () => {
    const inbox = await ask({ text: 'Inbox answer?', format: 'CONFIRM' });
    await gql('mutation($id: ID!) { answer(id: $id, answer: true) { status } }', { id: inbox.id }, 'ops');
    const edited = await discord.waitFor('PATCH', EDITS, editOf('Inbox answer?'));
    expect(edited.body).toMatchObject({
      content: 'Inbox answer?\n\nAnswered in the inbox by ops',
      components: [],
    });
    // A click after that shows the outcome and changes nothing.
    const late = await interact(componentClick(`tai:c:${inbox.id}:0`));
    expect(await late.json()).toMatchObject({
      type: 7,
      data: { content: expect.stringContaining('in the inbox') },
    });

    const cancelled = await ask({ text: 'Cancel me?', format: 'CONFIRM' });
    await gql('mutation($id: ID!) { cancelQuestion(id: $id, reason: "not needed") { status } }', {
      id: cancelled.id,
    });
    const c = await discord.waitFor('PATCH', EDITS, editOf('Cancel me?'));
    expect(c.body.content).toBe('Cancel me?\n\nCancelled: not needed');

    await ask({ text: 'Time me out?', format: 'CONFIRM', timeoutSeconds: 1 });
    const tm = await discord.waitFor('PATCH', EDITS, editOf('Time me out?'));
    expect(tm.body.content).toBe('Time me out?\n\nTimed out');
  });

  it('a sensitive question: the answer never reaches Discord', async () => {
    const { id } = await ask({ text: 'Your PIN?', format: 'TEXT', sensitive: true });
    const res = await interact(modalSubmit(`tai:x:${id}`, { v: '4242' }));
    const body = JSON.stringify(await res.json());
    expect(body).toContain('Answered');
    expect(body).not.toContain('4242');
    const edit = await discord.waitFor('PATCH', EDITS, editOf('Your PIN?'));
    expect(edit.body.content).toBe('Your PIN?\n\nAnswered');
  });

  it('a Discord error on delivery is CHANNEL_DELIVERY_FAILED; a bad recipient is BAD_USER_INPUT', async () => {
    discord.failNext(403, 50001, 'Missing Access');
    const r = await gql(ASK, {
      input: { channel: 'ops-discord', text: 'Nobody hears this', format: 'CONFIRM' },
    });
    expect(r.errors?.[0]?.extensions.code).toBe('CHANNEL_DELIVERY_FAILED');
    expect(r.errors?.[0]?.message).toContain('HTTP 403 50001');
    const bad = await gql(ASK, {
      input: { channel: 'ops-discord', recipient: '#ops', text: 'x', format: 'CONFIRM' },
    });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.recipient' });
  });

  it('`tai channels setup`: sets the interactions endpoint, which Discord verifies with a PING', async () => {
    const dir = manifestDir(lines.join('\n'));
    const quiet = { info() {}, warn() {}, error() {} };
    const env = { DISCORD_BOT_TOKEN: TOKEN, INTERACTIONS_PUBLIC_BASE_URL: base };
    const line = await setupChannel('ops-discord', env, dir, quiet);
    expect(line).toBe(`Discord interactions endpoint set to ${door()}`);
    const call = discord.callsTo('PATCH', /^\/applications\/@me$/).at(-1)!;
    expect(call.body).toEqual({ interactions_endpoint_url: door() });
    // An endpoint that does not answer Discord's check is refused, and the error says so.
    const wrong = { ...env, INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9' };
    await expect(setupChannel('ops-discord', wrong, dir, quiet)).rejects.toThrow(
      'discord set the interactions endpoint URL failed: HTTP 400 50035',
    );
  });

  it('no forged request at the size cap blocks the event loop more than 50 ms', async () => {
    // The most JSON an attacker can send: the door's cap of tiny keys, with a well-formed signature header.
    const keys = Array.from({ length: 30_000 }, (_, i) => `"${i.toString(36)}":0`);
    const body = `{${keys.join(',')}}`.slice(0, DISCORD_INBOUND_MAX_BYTES);
    expect(Buffer.byteLength(body)).toBe(DISCORD_INBOUND_MAX_BYTES);
    const headers = { 'content-type': 'application/json', ...discord.signer.headers('{}') };
    const forged = () =>
      t.server.inject({
        method: 'POST',
        url: '/api/interactions/channels/ops-discord',
        headers,
        payload: body,
      });
    expect((await forged()).statusCode).toBe(401);
    const delay = await leastLoopDelay(async () => {
      expect((await forged()).statusCode).toBe(401);
    }, 50);
    expect(delay).toBeLessThan(50);
  });

  it('a click of exactly DISCORD_INBOUND_MAX_BYTES is answered; one byte more is 413 and changes nothing', async () => {
    const { id } = await ask({ text: 'At the cap?', format: 'CONFIRM' });
    /** A signed click whose body is `size` bytes: the repeated message content padded. */
    const clickOf = (size: number) => {
      const click = componentClick(`tai:c:${id}:1`);
      const bare = Buffer.byteLength(JSON.stringify(click));
      return { ...click, message: { ...click.message, content: `…${'a'.repeat(size - bare)}` } };
    };
    const over = clickOf(DISCORD_INBOUND_MAX_BYTES + 1);
    expect(Buffer.byteLength(JSON.stringify(over))).toBe(DISCORD_INBOUND_MAX_BYTES + 1);
    expect((await interact(over)).status).toBe(413);
    expect((await question(id)).status).toBe('PENDING');
    const at = clickOf(DISCORD_INBOUND_MAX_BYTES);
    expect(Buffer.byteLength(JSON.stringify(at))).toBe(DISCORD_INBOUND_MAX_BYTES);
    expect((await interact(at)).status).toBe(200);
    expect((await question(id)).status).toBe('ANSWERED');
  });

  it('`tai channels test`: the test message arrives, then is edited to "Cancelled: test message"', async () => {
    const r = await runCliInProcess(['channels', 'test', 'ops-discord', '--json'], {
      env: { TAI_URL: base, TAI_API_KEY: KEYS.agent },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const edit = await discord.waitFor('PATCH', EDITS, (c) => JSON.stringify(c.body).includes('reaches you'));
    expect(JSON.stringify(edit.body)).toContain('Cancelled: test message');
  });
});
