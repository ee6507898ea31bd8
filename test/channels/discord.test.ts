// The discord plugin against a loopback fake of Discord's REST API that @discordjs/rest talks to,
// and interactions signed with a real Ed25519 key pair made for the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCORD_LIMITS, questionModal } from '../../src/channels/discord/components.ts';
import { DEFER_AFTER_MS } from '../../src/channels/discord/events.ts';
import { discordPlugin } from '../../src/channels/discord/plugin.ts';
import type { ChannelQuestion, InboundEvent } from '../../src/channels/types.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import {
  componentsProblem,
  type FakeDiscord,
  interactionKeys,
  modalProblem,
  startFakeDiscord,
} from '../support/fakes/discord-api.ts';
import {
  componentClick,
  DISCORD_APP,
  DISCORD_CHANNEL,
  DISCORD_USER,
  discordRequest,
  modalSubmit,
  ping,
} from '../support/fakes/discord-requests.ts';

const TOKEN = 'discord-bot-token-0001';
const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-abc';
let discord: FakeDiscord;

beforeAll(async () => {
  discord = await startFakeDiscord(TOKEN);
});
afterAll(() => discord.close());

function channel(secrets: Record<string, string> = { DISCORD_BOT_TOKEN: TOKEN }, extra = {}) {
  const config = discordPlugin.config.parse({
    botTokenEnv: 'DISCORD_BOT_TOKEN',
    publicKey: discord.publicKey,
    applicationId: DISCORD_APP,
    defaultRecipient: DISCORD_CHANNEL,
    apiUrl: discord.apiUrl,
    ...extra,
  });
  return discordPlugin.create(config, channelContext('ops-discord', secrets));
}

type Component = Record<string, unknown> & { components?: Component[] };

async function delivered(q: ChannelQuestion) {
  const receipt = await channel().deliver(q, CALLBACK);
  const call = discord.callsTo('POST', /^\/channels\/\d+\/messages$/).at(-1)!;
  expect(call.auth).toBe(`Bot ${TOKEN}`);
  expect(componentsProblem(call.body.components)).toBeNull();
  return { receipt, body: call.body, rows: call.body.components as Component[] };
}

const q = (over: Partial<ChannelQuestion>) => channelQuestion({ recipient: DISCORD_CHANNEL, ...over });

async function inboundOf(interaction: unknown, opts = {}): Promise<InboundEvent> {
  return channel().inbound!(discordRequest(discord.signer, interaction, opts));
}

describe('discord channel: delivery', () => {
  it('CONFIRM: Yes/No buttons carrying the question id and an index, no pings, no previews', async () => {
    const { receipt, body, rows } = await delivered(q({ id: 'q_1', text: 'Ship it?' }));
    expect(receipt).toEqual({
      recipient: DISCORD_CHANNEL,
      channel: DISCORD_CHANNEL,
      message: expect.any(String),
    });
    expect(body).toMatchObject({ content: 'Ship it?', allowed_mentions: { parse: [] }, flags: 4 });
    expect(rows).toEqual([
      {
        type: 1,
        components: [
          { type: 2, style: 3, label: 'Yes', custom_id: 'tai:c:q_1:1' },
          { type: 2, style: 2, label: 'No', custom_id: 'tai:c:q_1:0' },
        ],
      },
    ]);
    expect(JSON.stringify(body)).not.toContain('TICKET');
  });

  it('SELECT: up to 5 options are buttons, 6 to 25 one string select, more several (25 each)', async () => {
    const five = await delivered(q({ id: 'q_5', format: 'SELECT', options: ['a', 'b', 'c', 'd', 'e'] }));
    expect(five.rows[0]!.components!.map((c) => c.custom_id)).toEqual(
      [0, 1, 2, 3, 4].map((i) => `tai:s:q_5:${i}`),
    );
    const six = await delivered(q({ id: 'q_6', format: 'SELECT', options: ['a', 'b', 'c', 'd', 'e', 'f'] }));
    expect(six.rows).toHaveLength(1);
    expect(six.rows[0]!.components![0]).toMatchObject({
      type: 3,
      custom_id: 'tai:m:q_6:0',
      placeholder: 'Choose one',
    });
    const options = Array.from({ length: 100 }, (_, i) => `option ${i}`);
    const hundred = await delivered(q({ id: 'q_100', format: 'SELECT', options }));
    expect(hundred.rows).toHaveLength(4);
    const last = hundred.rows[3]!.components![0] as {
      options: { label: string; value: string }[];
      placeholder: string;
    };
    expect(last.placeholder).toBe('Choose one (76–100)');
    expect(last.options.at(-1)).toEqual({ label: 'option 99', value: '99' });
  });

  it('TEXT and a flat FORM: a button that opens a modal; a nested FORM and EXTERNAL: link buttons', async () => {
    const text = await delivered(q({ id: 'q_t', format: 'TEXT' }));
    expect(text.rows[0]!.components).toEqual([
      { type: 2, style: 1, label: 'Answer', custom_id: 'tai:t:q_t' },
    ]);
    const schema = { type: 'object', properties: { reason: { type: 'string' } } };
    const form = await delivered(q({ id: 'q_f', format: 'FORM', schema }));
    expect(form.rows[0]!.components).toEqual([
      { type: 2, style: 1, label: 'Open form', custom_id: 'tai:f:q_f' },
      { type: 2, style: 5, label: 'Open in browser', url: CALLBACK },
    ]);
    const nested = { type: 'object', properties: { owner: { type: 'object', properties: {} } } };
    const deep = await delivered(q({ id: 'q_n', format: 'FORM', schema: nested }));
    expect(deep.rows[0]!.components).toEqual([{ type: 2, style: 5, label: 'Open form', url: CALLBACK }]);
    const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [k, { type: 'string' }]));
    const wide = await delivered(
      q({ id: 'q_w', format: 'FORM', schema: { type: 'object', properties: six } }),
    );
    expect(wide.rows[0]!.components).toEqual([{ type: 2, style: 5, label: 'Open form', url: CALLBACK }]);
    const ext = await delivered(q({ id: 'q_e', format: 'EXTERNAL', link: 'https://pay.example/x' }));
    expect(ext.rows[0]!.components).toEqual([
      { type: 2, style: 5, label: 'Open', url: 'https://pay.example/x' },
    ]);
  });

  it('hostile text is escaped (no mentions, masked links or markdown) and cut to 2,000 characters', async () => {
    const hostile = '@everyone <@123456789012345678> [click](https://evil.example) **bold** `code`';
    const { body } = await delivered(q({ text: hostile }));
    expect(body.content).toBe(
      '\\@everyone \\<\\@123456789012345678\\> \\[click\\]\\(https\\://evil\\.example\\) \\*\\*bold\\*\\* \\`code\\`',
    );
    const long = await delivered(q({ text: '*'.repeat(3000) }));
    const content = long.body.content as string;
    // Never cut inside an escape: 999 escaped stars and the ellipsis.
    expect([...content]).toHaveLength(1999);
    expect(content.endsWith('\\*…')).toBe(true);
  });

  it('a Discord error on delivery names its status and code, never the token', async () => {
    discord.failNext(404, 10003, 'Unknown Channel');
    const err = await channel()
      .deliver(q({}), CALLBACK)
      .catch((e: Error) => e);
    expect((err as Error).message).toBe('discord create message failed: HTTP 404 10003');
    const unset = await channel({})
      .deliver(q({}), CALLBACK)
      .catch((e: Error) => e);
    expect((unset as Error).message).toBe('the Discord bot token (DISCORD_BOT_TOKEN) is not set');
  });

  it('recipients must be channel ids', () => {
    expect(channel().checkRecipient!('1100000000000000042')).toBeNull();
    expect(channel().checkRecipient!('#general')).toBe('must be a Discord channel id');
  });
});

describe('discord channel: the interactions endpoint', () => {
  it('PING is answered PONG once verified; unsigned, forged, stale or wrongly keyed PINGs are 401', async () => {
    expect(await inboundOf(ping())).toEqual({ kind: 'ignore', response: { status: 200, body: { type: 1 } } });
    const body = JSON.stringify(ping());
    const req = discordRequest(discord.signer, ping());
    const c = channel();
    expect(await c.inbound!({ ...req, headers: {} })).toMatchObject({ kind: 'reject', status: 401 });
    const forged = { ...req.headers, 'x-signature-ed25519': 'ab'.repeat(64) };
    expect(await c.inbound!({ ...req, headers: forged })).toMatchObject({ kind: 'reject', status: 401 });
    const stale = Math.floor(Date.now() / 1000) - 301;
    expect(await inboundOf(ping(), { signedAt: stale })).toMatchObject({ kind: 'reject', status: 401 });
    const edge = Math.floor(Date.now() / 1000) - 299;
    expect(await inboundOf(ping(), { signedAt: edge })).toMatchObject({ kind: 'ignore' });
    const other = interactionKeys();
    const wrongKey = { ...req, headers: other.signer.headers(body) };
    expect(await c.inbound!(wrongKey)).toMatchObject({ kind: 'reject', status: 401 });
  });

  it('one changed byte of the body is a 401', async () => {
    const req = discordRequest(discord.signer, componentClick('tai:c:q_1:1'));
    const raw = Buffer.from(req.rawBody);
    raw[raw.indexOf('q_1')] = 'Q'.charCodeAt(0);
    expect(await channel().inbound!({ ...req, rawBody: raw })).toMatchObject({ kind: 'reject', status: 401 });
  });

  it('a signed body that is no interaction is 400', async () => {
    const c = channel();
    const body = Buffer.from('not json');
    const req = { rawBody: body, headers: discord.signer.headers(body), url: 'x', now: Date.now() };
    expect(await c.inbound!(req)).toMatchObject({ kind: 'reject', status: 400 });
  });

  it('a Yes click answers CONFIRM, by the clicker, and updates the message in place', async () => {
    const ev = await inboundOf(componentClick('tai:c:q_1:1'));
    if (ev.kind !== 'answer') throw new Error(ev.kind);
    expect(ev.question).toEqual({ id: 'q_1' });
    expect(ev.by).toBe(DISCORD_USER);
    expect(ev.dedupe?.id).toMatch(/^interaction:\d+$/);
    const question = q({ id: 'q_1' });
    expect(ev.answer(question)).toBe(true);
    const done = {
      ...question,
      status: 'ANSWERED' as const,
      answer: true,
      answeredBy: `ops-discord:${DISCORD_USER}`,
    };
    const res = await ev.respond({ kind: 'recorded', question: done, delivery: null });
    expect(res).toEqual({
      status: 200,
      body: {
        type: 7,
        data: {
          content: `Ship it?\n\nAnswered by <@${DISCORD_USER}>: Yes`,
          components: [],
          allowed_mentions: { parse: [] },
          flags: 4,
        },
      },
    });
  });

  it('SELECT buttons and menus answer with the option; an invalid answer is told to the clicker alone', async () => {
    const question = q({ id: 'q_s', format: 'SELECT', options: ['a', 'b', 'c'] });
    const button = await inboundOf(componentClick('tai:s:q_s:2'));
    if (button.kind !== 'answer') throw new Error(button.kind);
    expect(button.answer(question)).toBe('c');
    const menu = await inboundOf(componentClick('tai:m:q_s:0', { values: ['1'] }));
    if (menu.kind !== 'answer') throw new Error(menu.kind);
    expect(menu.answer(question)).toBe('b');
    const refused = await menu.respond({
      kind: 'invalid',
      message: 'no such option',
      question,
      delivery: null,
    });
    expect(refused.body).toEqual({
      type: 4,
      data: {
        content: 'That answer was not accepted: no such option',
        flags: 64,
        allowed_mentions: { parse: [] },
      },
    });
  });

  it('TEXT: the button opens a modal Discord accepts; its submission answers with what was typed', async () => {
    const question = q({ id: 'q_t', format: 'TEXT' });
    const open = await inboundOf(componentClick('tai:t:q_t'));
    if (open.kind !== 'show') throw new Error(open.kind);
    const shown = await open.respond({ kind: 'pending', question, delivery: null });
    const body = shown.body as { type: number; data: unknown };
    expect(body.type).toBe(9);
    expect(modalProblem(body.data)).toBeNull();
    const submit = await inboundOf(modalSubmit('tai:x:q_t', { v: 'because' }));
    if (submit.kind !== 'answer') throw new Error(submit.kind);
    expect(submit.answer(question)).toBe('because');
  });

  it('FORM: the modal has one typed field per property; the submission is typed by the schema', async () => {
    const schema = {
      type: 'object',
      properties: {
        reason: { type: 'string', title: 'Why' },
        count: { type: 'integer' },
        urgent: { type: 'boolean' },
        level: { enum: ['low', 'high', 3] },
      },
      required: ['reason'],
    };
    const question = q({ id: 'q_f', format: 'FORM', schema });
    const open = await inboundOf(componentClick('tai:f:q_f'));
    if (open.kind !== 'show') throw new Error(open.kind);
    const shown = (await open.respond({ kind: 'pending', question, delivery: null })).body as {
      data: { components: { components: Record<string, unknown>[] }[] };
    };
    expect(modalProblem(shown.data)).toBeNull();
    expect(shown.data.components.map((r) => r.components[0]!.label)).toEqual([
      'Why',
      'count',
      'urgent',
      'level',
    ]);
    expect(shown.data.components[3]!.components[0]!.placeholder).toBe('one of: low, high, 3');
    const submit = await inboundOf(
      modalSubmit('tai:x:q_f', { 'f:0': 'disk full', 'f:1': '3', 'f:2': 'yes', 'f:3': '3' }),
    );
    if (submit.kind !== 'answer') throw new Error(submit.kind);
    expect(submit.answer(question)).toEqual({ reason: 'disk full', count: 3, urgent: true, level: 3 });
    const odd = await inboundOf(modalSubmit('tai:x:q_f', { 'f:0': 'x', 'f:1': 'many', 'f:2': 'maybe' }));
    if (odd.kind !== 'answer') throw new Error(odd.kind);
    // What does not fit the schema stays text, so validation refuses it with its own message.
    expect(odd.answer(question)).toEqual({ reason: 'x', count: 'many', urgent: 'maybe' });
  });

  it('a modal for a closed question shows the outcome instead; an unknown one says so privately', async () => {
    const open = await inboundOf(componentClick('tai:t:q_t'));
    if (open.kind !== 'show') throw new Error(open.kind);
    const closed = q({ id: 'q_t', format: 'TEXT', status: 'TIMED_OUT' });
    expect((await open.respond({ kind: 'closed', question: closed, delivery: null })).body).toMatchObject({
      type: 7,
      data: { content: 'Ship it?\n\nTimed out', components: [] },
    });
    expect((await open.respond({ kind: 'not-found' })).body).toMatchObject({ type: 4, data: { flags: 64 } });
  });

  it('an application command and an unknown component are acknowledged, nothing else', async () => {
    const command = await inboundOf({ ...componentClick('x'), type: 2, data: { name: 'ask' } });
    expect(command).toMatchObject({ kind: 'ignore', response: { body: { type: 4, data: { flags: 64 } } } });
    expect(await inboundOf(componentClick('other:thing'))).toEqual({
      kind: 'ignore',
      response: { status: 200, body: { type: 6 } },
    });
  });

  it(`a claim still running ${DEFER_AFTER_MS} ms after arrival is deferred, then edits the original message`, async () => {
    const click = componentClick('tai:c:q_d:1');
    // The request arrived long enough ago that the deferral is due as the claim starts.
    const ev = await inboundOf(click, { now: Date.now() - DEFER_AFTER_MS });
    if (ev.kind !== 'answer') throw new Error(ev.kind);
    const question = q({ id: 'q_d' });
    ev.answer(question);
    const deferred = await discord.waitFor(
      'POST',
      new RegExp(`^/interactions/${click.id}/${click.token}/callback$`),
    );
    expect(deferred.body).toEqual({ type: 6 });
    expect(deferred.auth).toBeNull();
    const done = {
      ...question,
      status: 'ANSWERED' as const,
      answer: true,
      answeredBy: `ops-discord:${DISCORD_USER}`,
    };
    const res = await ev.respond({ kind: 'recorded', question: done, delivery: null });
    expect(res).toEqual({ status: 202 });
    const edit = discord.callsTo(
      'PATCH',
      new RegExp(`^/webhooks/${DISCORD_APP}/${click.token}/messages/@original$`),
    );
    expect(edit.at(-1)!.body).toMatchObject({
      content: `Ship it?\n\nAnswered by <@${DISCORD_USER}>: Yes`,
      components: [],
    });
  });

  it('a fast claim answers inline: nothing deferred', async () => {
    const click = componentClick('tai:c:q_fast:0');
    const ev = await inboundOf(click);
    if (ev.kind !== 'answer') throw new Error(ev.kind);
    ev.answer(q({ id: 'q_fast' }));
    const res = await ev.respond({ kind: 'not-found' });
    expect(res.status).toBe(200);
    expect(discord.callsTo('POST', new RegExp(`/interactions/${click.id}/`))).toHaveLength(0);
  });
});

describe('discord channel: after resolution', () => {
  const receipt = { recipient: DISCORD_CHANNEL, channel: DISCORD_CHANNEL, message: '1100000000000000999' };
  const edits = () => discord.callsTo('PATCH', /^\/channels\/\d+\/messages\/1100000000000000999$/);

  it.each([
    [{ status: 'ANSWERED', answer: 'ok', answeredBy: 'ops' }, 'Answered in the inbox by ops'],
    [{ status: 'ANSWERED', answer: 'ok', answeredBy: 'callback' }, 'Answered on the answer page: ok'],
    [{ status: 'ANSWERED', answer: 'secret', answeredBy: 'ops', sensitive: true }, 'Answered'],
    [{ status: 'CANCELLED', cancelReason: 'not *needed*' }, 'Cancelled: not \\*needed\\*'],
    [{ status: 'TIMED_OUT' }, 'Timed out'],
  ] as const)('edits the message: %j → %s', async (over, line) => {
    await channel().onResolved!(q({ format: 'TEXT', ...(over as Partial<ChannelQuestion>) }), receipt);
    const edit = edits().at(-1)!;
    expect(edit.auth).toBe(`Bot ${TOKEN}`);
    expect(edit.body).toEqual({
      content: `Ship it?\n\n${line}`,
      components: [],
      allowed_mentions: { parse: [] },
      flags: 4,
    });
    expect(JSON.stringify(edit.body)).not.toContain('secret');
  });

  it('a failed edit throws (the outbox retries it)', async () => {
    discord.failNext(500, 0, 'Internal');
    await expect(channel().onResolved!(q({ status: 'TIMED_OUT' }), receipt)).rejects.toThrow(
      'discord edit message failed: HTTP 500',
    );
  });
});

describe('discord channel: the APPROVAL edit modal', () => {
  it(`prefills an argument of ${DISCORD_LIMITS.inputMaxLength} characters; one more is left empty (Discord would refuse the modal)`, () => {
    const schema = { type: 'object', properties: { note: { type: 'string' } } };
    const modalWith = (note: string) =>
      questionModal(
        channelQuestion({
          id: 'q_m',
          format: 'APPROVAL',
          action: {
            name: 'n.set',
            summary: null,
            arguments: { note },
            argumentsSchema: schema,
            editable: true,
            digest: 'd',
          },
        }),
      ) as { components: { components: { value?: string }[] }[] };
    const at = 'a'.repeat(DISCORD_LIMITS.inputMaxLength);
    expect(modalWith(at).components[0]!.components[0]!.value).toBe(at);
    expect(modalWith(`${at}a`).components[0]!.components[0]!.value).toBeUndefined();
  });
});
