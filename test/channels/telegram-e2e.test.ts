// The telegram channel end to end (issue 12): the real server on Redis with a manifest naming the
// channel, a local fake of the Telegram Bot API, and updates posted to the channel's inbound door
// exactly as Telegram posts them, with the secret token header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/channels/telegram/format.ts';
import { graphqlAt, manifestOf, startChannelServer } from '../support/channel-server.ts';
import {
  buttonPress,
  type FakeTelegram,
  replyTo,
  startFakeTelegram,
  type TelegramCall,
} from '../support/fakes/telegram.ts';
import type { TestServer } from '../support/server.ts';

const TOKEN = '123456:e2e-telegram-token';
const SECRET = 'e2e_telegram-secret_0001';
const CHAT = 5150;
const USER = 777;
let tg: FakeTelegram;
let t: TestServer;
let base: string;

beforeAll(async () => {
  tg = await startFakeTelegram(TOKEN);
  const manifest = await manifestOf(
    [
      'channels:',
      '  ops-tg:',
      '    plugin: telegram',
      '    config:',
      '      botTokenEnv: TELEGRAM_BOT_TOKEN',
      '      webhookSecretEnv: TELEGRAM_WEBHOOK_SECRET',
      `      defaultRecipient: "${CHAT}"`,
      `      apiRoot: ${tg.apiRoot}`,
    ],
    { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET },
  );
  t = await startChannelServer(manifest);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await tg?.close();
});

const gql = graphqlAt(() => base);

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) {
  status callbackUrl question { id status recipient } } }`;

/** Asks through the channel; returns the question id and the message Telegram received. */
async function ask(
  input: Record<string, unknown>,
): Promise<{ id: string; messageId: number; send: TelegramCall }> {
  const text = String(input.text);
  const r = await gql(ASK, { input: { channel: 'ops-tg', ...input } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const send = await tg.waitFor('sendMessage', (c) => String(c.args.text).includes(escapeHtml(text)));
  const messageId = (send.result as { message_id: number }).message_id;
  return { id: r.data!.askUser.question.id as string, messageId, send };
}

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

async function post(update: unknown, secret: string | null = SECRET, name = 'ops-tg') {
  return fetch(`${base}/api/interactions/channels/${name}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }),
    },
    body: JSON.stringify(update),
  });
}

const editOf = (text: string) => tg.waitFor('editMessageText', (c) => String(c.args.text).startsWith(text));

describe('telegram channel end to end (redis)', () => {
  it('APPROVAL: the action under the question, Approve / Reject buttons, an edit link to the answer page', async () => {
    const { id, messageId, send } = await ask({
      text: 'Refund order 77?',
      format: 'APPROVAL',
      action: {
        name: 'payments.refund',
        summary: 'Refund <all>',
        arguments: { charge: 'ch_1', amount: 100 },
        argumentsSchema: {
          type: 'object',
          properties: { charge: { type: 'string' }, amount: { type: 'integer' } },
        },
        editable: true,
      },
    });
    expect(send.args.text).toContain('<b>payments.refund — Refund &lt;all&gt;</b>');
    expect(send.args.text).toContain('&quot;amount&quot;: 100');
    const keyboard = (send.args.reply_markup as { inline_keyboard: { text: string; url?: string }[][] })
      .inline_keyboard;
    expect(keyboard[0]!.map((b) => b.text)).toEqual(['Approve', 'Reject']);
    expect(keyboard[1]![0]).toMatchObject({ text: 'Edit and approve' });
    expect(keyboard[1]![0]!.url).toContain('/api/interactions/callback/');
    expect((await post(buttonPress(CHAT, messageId, 'tai:0', USER))).status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: { decision: 'REJECTED' },
      answeredBy: `ops-tg:${USER}`,
    });
    const edit = await editOf('Refund order 77?');
    expect(edit.args.text).toBe(`Refund order 77?\n\n<i>Answered by Ana: Rejected</i>`);
  });

  it('APPROVAL with a quorum: a press is a vote, a repeat counts nothing, another vote is refused, and the question stays pending', async () => {
    const { id, messageId } = await ask({
      text: 'Rotate the bot token?',
      format: 'APPROVAL',
      action: { name: 'bot.rotate', arguments: {} },
      quorum: { approvals: 2 },
    });
    expect((await post(buttonPress(CHAT, messageId, 'tai:1', USER))).status).toBe(200);
    expect((await question(id)).status).toBe('PENDING');
    // The same press again (a new update) is a retry (API.md §15): a success that counts nothing.
    expect((await post({ ...buttonPress(CHAT, messageId, 'tai:1', USER), update_id: 4242 })).status).toBe(
      200,
    );
    expect((await question(id)).status).toBe('PENDING');
    // Another vote by the same person is refused.
    await post({ ...buttonPress(CHAT, messageId, 'tai:0', USER), update_id: 4243 });
    const again = await tg.waitFor('answerCallbackQuery', (c) =>
      String(c.args.text).includes('already voted'),
    );
    expect(again.args.text).toMatch(/you have already voted/);
  });

  it('`channelDetails` lists the configured channel as ready, with its inbound door', async () => {
    const r = await gql('{ channels channelDetails { name plugin inbound defaultRecipient ready missing } }');
    expect(r.data).toEqual({
      channels: ['ops-tg'],
      channelDetails: [
        {
          name: 'ops-tg',
          plugin: 'telegram',
          inbound: true,
          defaultRecipient: String(CHAT),
          ready: true,
          missing: [],
        },
      ],
    });
  });

  it('CONFIRM by button: answered as ops-tg:<user>, the press acknowledged, the message edited', async () => {
    const { id, messageId, send } = await ask({ text: 'Deploy the hotfix?', format: 'CONFIRM' });
    expect(send.args.chat_id).toBe(String(CHAT));
    const res = await post(buttonPress(CHAT, messageId, 'tai:1', USER));
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: true,
      answeredBy: `ops-tg:${USER}`,
    });
    const ack = await tg.waitFor(
      'answerCallbackQuery',
      (c) => c.args.callback_query_id === `cq${messageId}tai:1`,
    );
    expect(ack.args.text).toBe('Recorded');
    const edit = await editOf('Deploy the hotfix?');
    expect(edit.args).toMatchObject({
      chat_id: String(CHAT),
      message_id: messageId,
      reply_markup: { inline_keyboard: [] },
    });
    // The sender's name (first_name "Ana") shows where it is known (API.md §19); answeredBy keeps the id.
    expect(edit.args.text).toBe(`Deploy the hotfix?\n\n<i>Answered by Ana: Yes</i>`);
    // A second press after the answer is refused with the reason, and changes nothing.
    await post({ ...buttonPress(CHAT, messageId, 'tai:0', USER), update_id: 9 });
    const late = await tg.waitFor(
      'answerCallbackQuery',
      (c) => c.args.callback_query_id === `cq${messageId}tai:0`,
    );
    expect(late.args.text).toBe('This question was already answered.');
    expect((await question(id)).answer).toBe(true);
  });

  it('SELECT by button answers with the option', async () => {
    const { id, messageId } = await ask({
      text: 'Which region?',
      format: 'SELECT',
      options: ['eu', 'us', 'ap'],
    });
    expect((await post(buttonPress(CHAT, messageId, 'tai:2'))).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: 'ap' });
  });

  it('TEXT by reply to the question message', async () => {
    const { id, messageId, send } = await ask({ text: 'What should the release note say?', format: 'TEXT' });
    expect(send.args.reply_markup).toMatchObject({ force_reply: true });
    expect((await post(replyTo(CHAT, messageId, 'Fixes the login loop.'))).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: 'Fixes the login loop.' });
  });

  it('a sensitive TEXT question never asks for the answer in the chat: it is typed on the answer page', async () => {
    const r = await gql(ASK, {
      input: { channel: 'ops-tg', text: 'The deploy token?', format: 'TEXT', sensitive: true },
    });
    expect(r.errors).toBeUndefined();
    const { id } = r.data!.askUser.question as { id: string };
    const callbackUrl = r.data!.askUser.callbackUrl as string;
    const send = await tg.waitFor('sendMessage', (c) => String(c.args.text).includes('The deploy token?'));
    const markup = send.args.reply_markup as Record<string, unknown>;
    expect(markup.force_reply).toBeUndefined();
    expect(markup).toEqual({ inline_keyboard: [[{ text: 'Answer privately', url: callbackUrl }]] });
    // A reply typed anyway is not recorded (and the person is told to delete it).
    const messageId = (send.result as { message_id: number }).message_id;
    expect((await post(replyTo(CHAT, messageId, 'tok-in-chat'))).status).toBe(200);
    await tg.waitFor('sendMessage', (c) =>
      String(c.args.text).startsWith('Not recorded: this answer is sensitive'),
    );
    expect((await question(id)).status).toBe('PENDING');
    // The answer page: one masked field, posted as a browser posts it.
    const door = `${base}/api/interactions/callback/${callbackUrl.split('/').at(-1)!}`;
    const page = await (await fetch(door)).text();
    expect(page).toContain('<input type="password" id="a" name="answer" required autocomplete="off">');
    const res = await fetch(door, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ answer: 'tok-on-page' }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: null, answeredBy: 'callback' });
    const edit = await tg.waitFor('editMessageText', (c) =>
      String(c.args.text).includes('The deploy token?'),
    );
    expect(String(edit.args.text)).not.toContain('tok-');
  });

  it('a wrong or missing secret token is 401 and changes nothing', async () => {
    const { id, messageId } = await ask({ text: 'Wrong secret?', format: 'CONFIRM' });
    expect((await post(buttonPress(CHAT, messageId, 'tai:1'), `${SECRET}x`)).status).toBe(401);
    expect((await post(buttonPress(CHAT, messageId, 'tai:1'), null)).status).toBe(401);
    expect((await question(id)).status).toBe('PENDING');
  });

  it('answered in the inbox, and timed out: each edits the Telegram message', async () => {
    const inbox = await ask({ text: 'Inbox answer here?', format: 'CONFIRM' });
    const r = await gql(
      'mutation($id: ID!) { answer(id: $id, answer: false) { status } }',
      { id: inbox.id },
      'ops',
    );
    expect(r.errors).toBeUndefined();
    expect((await editOf('Inbox answer here?')).args.text).toBe(
      'Inbox answer here?\n\n<i>Answered in the inbox by ops</i>',
    );
    await ask({ text: 'Time me out on Telegram?', format: 'CONFIRM', timeoutSeconds: 1 });
    expect((await editOf('Time me out on Telegram?')).args.text).toBe(
      'Time me out on Telegram?\n\n<i>Timed out</i>',
    );
  });

  it('hostile question text is escaped for HTML parse mode', async () => {
    const { send } = await ask({
      text: '<b>x</b> <a href="https://evil.example">click</a> & co',
      format: 'CONFIRM',
    });
    expect(send.args.text).toBe(
      '&lt;b&gt;x&lt;/b&gt; &lt;a href=&quot;https://evil.example&quot;&gt;click&lt;/a&gt; &amp; co',
    );
    expect(send.args.parse_mode).toBe('HTML');
  });
});
