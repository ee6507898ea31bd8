import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_DATA_MAX_BYTES } from '../../src/channels/telegram/format.ts';
import { telegramPlugin } from '../../src/channels/telegram/plugin.ts';
import type {
  ChannelQuestion,
  ClaimOutcome,
  DeliveryRecord,
  InboundEvent,
} from '../../src/channels/types.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import {
  buttonPress,
  type FakeTelegram,
  htmlProblem,
  replyTo,
  startFakeTelegram,
  telegramRequest,
} from '../support/fakes/telegram.ts';

const TOKEN = '123456:telegram-test-token';
const SECRET = 'tg_webhook-secret_0001';
const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-abc';
const CHAT = 4242;
let tg: FakeTelegram;

beforeAll(async () => {
  tg = await startFakeTelegram(TOKEN);
});
afterAll(() => tg.close());

function channel(secrets: Record<string, string> = { TG_TOKEN: TOKEN, TG_SECRET: SECRET }, extra = {}) {
  const config = telegramPlugin.config.parse({
    botTokenEnv: 'TG_TOKEN',
    webhookSecretEnv: 'TG_SECRET',
    apiRoot: tg.apiRoot,
    ...extra,
  });
  return telegramPlugin.create(config, channelContext('tg', secrets));
}

type Keyboard = { inline_keyboard?: { text: string; callback_data?: string; url?: string }[][] };

async function delivered(q: ChannelQuestion) {
  const receipt = await channel().deliver(q, CALLBACK);
  const call = tg.callsTo('sendMessage').at(-1)!;
  expect(call.token).toBe(TOKEN);
  return { receipt, args: call.args, markup: call.args.reply_markup as Keyboard & Record<string, unknown> };
}

const recorded = (q: ChannelQuestion, receipt: DeliveryRecord | null = null): ClaimOutcome => ({
  kind: 'recorded',
  question: q,
  delivery: receipt,
});

async function answerEvent(update: unknown): Promise<Extract<InboundEvent, { kind: 'answer' }>> {
  const ev = await channel().inbound!(telegramRequest(SECRET, update));
  expect(ev.kind).toBe('answer');
  return ev as Extract<InboundEvent, { kind: 'answer' }>;
}

describe('telegram channel: delivery', () => {
  it('CONFIRM: an inline keyboard whose callback_data is short and never carries the ticket', async () => {
    const q = channelQuestion({ recipient: String(CHAT) });
    const { receipt, args, markup } = await delivered(q);
    expect(args).toMatchObject({ chat_id: String(CHAT), parse_mode: 'HTML', text: 'Ship it?' });
    expect(args.link_preview_options).toEqual({ is_disabled: true });
    expect(markup.inline_keyboard).toEqual([
      [
        { text: 'Yes', callback_data: 'tai:1' },
        { text: 'No', callback_data: 'tai:0' },
      ],
    ]);
    expect(JSON.stringify(args)).not.toContain('TICKET');
    expect(receipt).toMatchObject({ recipient: String(CHAT), chatId: String(CHAT) });
    expect(receipt.ref).toBe(`${CHAT}:${receipt.messageId}`);
    expect(JSON.parse(JSON.stringify(receipt))).toEqual(receipt);
  });

  it('SELECT: rows that fit a phone, callback_data within 64 bytes for the hundredth option', async () => {
    const options = ['red', 'green', 'blue', 'a much longer option label here', 'x'.repeat(80)];
    const { markup } = await delivered(channelQuestion({ recipient: '1', format: 'SELECT', options }));
    const rows = markup.inline_keyboard!;
    expect(rows.map((r) => r.map((b) => b.callback_data))).toEqual([
      ['tai:0', 'tai:1', 'tai:2'],
      ['tai:3'],
      ['tai:4'],
    ]);
    expect([...rows[2]![0]!.text]).toHaveLength(40);
    const forty = 'y'.repeat(40);
    const at = (await delivered(channelQuestion({ recipient: '1', format: 'SELECT', options: [forty] })))
      .markup;
    expect(at.inline_keyboard![0]![0]!.text).toBe(forty);
    const hundred = Array.from({ length: 100 }, (_, i) => `option number ${i}`);
    const big = (await delivered(channelQuestion({ recipient: '1', format: 'SELECT', options: hundred })))
      .markup;
    const buttons = big.inline_keyboard!.flat();
    expect(buttons).toHaveLength(100);
    expect(buttons.at(-1)!.callback_data).toBe('tai:99');
    for (const b of buttons)
      expect(Buffer.byteLength(b.callback_data!)).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
    for (const row of big.inline_keyboard!) expect(row.length).toBeLessThanOrEqual(3);
  });

  it('TEXT asks with ForceReply; FORM and EXTERNAL are URL buttons', async () => {
    expect((await delivered(channelQuestion({ recipient: '1', format: 'TEXT' }))).markup).toEqual({
      force_reply: true,
      input_field_placeholder: 'Your answer',
    });
    expect(
      (await delivered(channelQuestion({ recipient: '1', format: 'FORM' }))).markup.inline_keyboard,
    ).toEqual([[{ text: 'Open form', url: CALLBACK }]]);
    const ext = await delivered(
      channelQuestion({ recipient: '1', format: 'EXTERNAL', link: 'https://pay.example/x' }),
    );
    expect(ext.markup.inline_keyboard).toEqual([[{ text: 'Open', url: 'https://pay.example/x' }]]);
  });

  it('a sensitive TEXT question asks for no reply: a button to the answer page, and a line saying why', async () => {
    const { args, markup } = await delivered(
      channelQuestion({ format: 'TEXT', sensitive: true, text: 'Root password?' }),
    );
    expect(markup.force_reply).toBeUndefined();
    expect(markup.inline_keyboard).toEqual([[{ text: 'Answer privately', url: CALLBACK }]]);
    expect(String(args.text)).toBe(
      'Root password?\n\n<i>This answer is sensitive: answer it privately with the button below, not in this chat.</i>',
    );
    // At the length limit the tail still fits: Telegram takes the message.
    const long = await delivered(
      channelQuestion({ format: 'TEXT', sensitive: true, text: 'x'.repeat(4096) }),
    );
    expect(htmlProblem(String(long.args.text), 'HTML')).toBeNull();
  });

  it('hostile question text is escaped for HTML parse mode and Telegram accepts it', async () => {
    const text = '<b>bold</b> & <a href="tg://user?id=1">@everyone</a> <script>x</script> "q"';
    const { args } = await delivered(channelQuestion({ recipient: '1', text }));
    expect(args.text).toBe(
      '&lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href=&quot;tg://user?id=1&quot;&gt;@everyone&lt;/a&gt; &lt;script&gt;x&lt;/script&gt; &quot;q&quot;',
    );
    expect(htmlProblem(String(args.text), 'HTML')).toBeNull();
  });

  it('text of 4,096 characters is sent whole; one more is cut with a link to the answer page', async () => {
    const at = await delivered(channelQuestion({ recipient: '1', text: '&'.repeat(4096) }));
    expect(at.args.text).toBe('&amp;'.repeat(4096));
    const past = await delivered(channelQuestion({ recipient: '1', text: `${'é'.repeat(4096)}!` }));
    const sent = String(past.args.text);
    expect(sent).toContain(`<a href="${CALLBACK}">the full question is on the answer page</a>`);
    expect(htmlProblem(sent, 'HTML')).toBeNull();
    expect(sent.startsWith('é'.repeat(4000))).toBe(true);
  });

  it('a @channel recipient is named by its numeric chat id in the receipt; no recipient refuses', async () => {
    const { receipt } = await delivered(channelQuestion({ recipient: '@ops_channel' }));
    expect(receipt.recipient).toBe('-1001234567890');
    await expect(channel().deliver(channelQuestion({ recipient: null }), CALLBACK)).rejects.toThrow(
      'no recipient',
    );
    await channel(undefined, { defaultRecipient: '-100200' }).deliver(
      channelQuestion({ recipient: null }),
      CALLBACK,
    );
    expect(tg.callsTo('sendMessage').at(-1)!.args.chat_id).toBe('-100200');
  });

  it('a refusal from Telegram fails delivery with its code and description, never the token', async () => {
    tg.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
    const err = await channel()
      .deliver(channelQuestion({ recipient: '9' }), CALLBACK)
      .catch((e: Error) => e);
    expect((err as Error).message).toBe(
      'telegram sendMessage failed: 403 Forbidden: bot was blocked by the user',
    );
    expect((err as Error).message).not.toContain(TOKEN);
    const noToken = await channel({ TG_SECRET: SECRET })
      .deliver(channelQuestion({ recipient: '9' }), CALLBACK)
      .catch((e: Error) => e);
    expect((noToken as Error).message).toContain('TG_TOKEN');
  });

  it('checkRecipient accepts chat ids and @usernames only; the config refuses a bad defaultRecipient', () => {
    const c = channel();
    expect(c.checkRecipient!('-1001234')).toBeNull();
    expect(c.checkRecipient!('@ops_channel')).toBeNull();
    expect(c.checkRecipient!('C0123')).toMatch(/chat id/);
    expect(
      telegramPlugin.config.safeParse({ botTokenEnv: 'A', webhookSecretEnv: 'B', defaultRecipient: 'x y' })
        .success,
    ).toBe(false);
    expect(
      telegramPlugin.config.safeParse({
        botTokenEnv: 'A',
        webhookSecretEnv: 'B',
        apiRoot: 'http://evil.example',
      }).success,
    ).toBe(false);
  });
});

describe('telegram channel: inbound', () => {
  it('CONFIRM by button: the message names the question, the answer is true, the press is acknowledged', async () => {
    const ev = await answerEvent(buttonPress(CHAT, 501, 'tai:1'));
    expect(ev.question).toEqual({ ref: `${CHAT}:501` });
    expect(ev.by).toBe('777');
    expect(ev.answer(channelQuestion())).toBe(true);
    expect(ev.answer(channelQuestion({ format: 'TEXT' }))).toBeUndefined();
    const res = await ev.respond(recorded(channelQuestion()));
    expect(res.status).toBe(200);
    expect(tg.callsTo('answerCallbackQuery').at(-1)!.args).toEqual({
      callback_query_id: `cq501tai:1`,
      text: 'Recorded',
    });
    const no = await answerEvent(buttonPress(CHAT, 501, 'tai:0'));
    expect(no.answer(channelQuestion())).toBe(false);
  });

  it('SELECT by button: the index becomes the option; an index past the options is no answer', async () => {
    const ev = await answerEvent(buttonPress(CHAT, 502, 'tai:2'));
    const q = channelQuestion({ format: 'SELECT', options: ['a', 'b', 'c'] });
    expect(ev.answer(q)).toBe('c');
    expect(ev.answer({ ...q, options: ['a'] })).toBeUndefined();
  });

  it('a refused press is acknowledged with the reason', async () => {
    const q = channelQuestion({ status: 'ANSWERED', answer: true, answeredBy: 'tg:1' });
    const cases: [ClaimOutcome, string][] = [
      [{ kind: 'closed', question: q, delivery: null }, 'This question was already answered.'],
      [
        { kind: 'closed', question: { ...q, status: 'TIMED_OUT' }, delivery: null },
        'This question timed out.',
      ],
      [
        { kind: 'invalid', message: 'not one of the options', question: q, delivery: null },
        'Not accepted: not one of the options',
      ],
      [{ kind: 'not-found' }, 'This question is no longer available.'],
      [{ kind: 'duplicate', question: q, delivery: null }, 'Recorded'],
    ];
    for (const [outcome, text] of cases) {
      const ev = await answerEvent(buttonPress(CHAT, 503, 'tai:1'));
      expect((await ev.respond(outcome)).status).toBe(200);
      expect(tg.callsTo('answerCallbackQuery').at(-1)!.args.text).toBe(text);
    }
  });

  it('a refusal notice is cut to the 200 characters answerCallbackQuery allows', async () => {
    const ev = await answerEvent(buttonPress(CHAT, 506, 'tai:1'));
    const message = 'm'.repeat(300);
    await ev.respond({ kind: 'invalid', message, question: channelQuestion(), delivery: null });
    const text = String(tg.callsTo('answerCallbackQuery').at(-1)!.args.text);
    expect(text).toHaveLength(200);
    expect(text.endsWith('…')).toBe(true);
  });

  it('a button that is not ours, or has no message, is acknowledged and ignored', async () => {
    const before = tg.callsTo('answerCallbackQuery').length;
    const ev = await channel().inbound!(telegramRequest(SECRET, buttonPress(CHAT, 504, 'something-else')));
    expect(ev).toEqual({ kind: 'ignore', response: { status: 200 } });
    const noMessage = buttonPress(CHAT, 505, 'tai:1');
    delete (noMessage.callback_query as Partial<typeof noMessage.callback_query>).message;
    expect((await channel().inbound!(telegramRequest(SECRET, noMessage))).kind).toBe('ignore');
    expect(tg.callsTo('answerCallbackQuery').length).toBe(before + 2);
  });

  it('TEXT by reply: matched by reply_to_message; the reply text is the answer', async () => {
    const ev = await answerEvent(replyTo(CHAT, 600, '  use the blue one  '));
    expect(ev.question).toEqual({ ref: `${CHAT}:600` });
    expect(ev.answer(channelQuestion({ format: 'TEXT' }))).toBe('  use the blue one  ');
    expect(ev.answer(channelQuestion({ format: 'CONFIRM' }))).toBeUndefined();
    const sends = tg.callsTo('sendMessage').length;
    expect((await ev.respond(recorded(channelQuestion({ format: 'TEXT' })))).status).toBe(200);
    // A reply to some unrelated message, or to a button question, is ordinary chat: nothing is said.
    await ev.respond({ kind: 'not-found' });
    await ev.respond({ kind: 'invalid', message: 'no answer', question: channelQuestion(), delivery: null });
    expect(tg.callsTo('sendMessage').length).toBe(sends);
    const closed = channelQuestion({ format: 'TEXT', status: 'CANCELLED' });
    await ev.respond({ kind: 'closed', question: closed, delivery: null });
    expect(tg.callsTo('sendMessage').at(-1)!.args).toMatchObject({
      chat_id: CHAT,
      text: 'This question was cancelled.',
      reply_parameters: { message_id: 1600 },
    });
  });

  it('a reply with a document and a caption is told that only text replies are taken', async () => {
    const update = replyTo(CHAT, 610, 'ignored');
    const { text: _dropped, ...withoutText } = update.message;
    const ev = await answerEvent({
      ...update,
      message: {
        ...withoutText,
        caption: 'here is the answer',
        document: { file_id: 'BQACAgIAAxkBAAIB', file_unique_id: 'AgADBQ', file_name: 'answer.pdf' },
      },
    });
    expect(ev.question).toEqual({ ref: `${CHAT}:610` });
    const q = channelQuestion({ format: 'TEXT' });
    expect(ev.answer(q)).toBeUndefined();
    await ev.respond({
      kind: 'invalid',
      message: 'this reply does not answer the question',
      question: q,
      delivery: null,
    });
    expect(tg.callsTo('sendMessage').at(-1)!.args).toMatchObject({
      chat_id: CHAT,
      text: 'Only text replies are taken: reply to the question with your answer as text.',
      reply_parameters: { message_id: 1610 },
    });
  });

  it('a sensitive TEXT question is never answered from the chat: the reply is refused with advice', async () => {
    const ev = await answerEvent(replyTo(CHAT, 620, 'hunter2'));
    const q = channelQuestion({ format: 'TEXT', sensitive: true });
    expect(ev.answer(q)).toBeUndefined();
    await ev.respond({
      kind: 'invalid',
      message: 'this reply does not answer the question',
      question: q,
      delivery: null,
    });
    expect(String(tg.callsTo('sendMessage').at(-1)!.args.text)).toMatch(
      /^Not recorded: this answer is sensitive\./,
    );
    expect(JSON.stringify(tg.callsTo('sendMessage').at(-1)!.args)).not.toContain('hunter2');
  });

  it('a wrong, missing or repeated secret token is 401; without the secret set the door fails closed (500)', async () => {
    const update = buttonPress(CHAT, 501, 'tai:1');
    expect(await channel().inbound!(telegramRequest(`${SECRET}x`, update))).toMatchObject({
      kind: 'reject',
      status: 401,
    });
    expect(await channel().inbound!(telegramRequest(undefined, update))).toMatchObject({
      kind: 'reject',
      status: 401,
    });
    const twice = telegramRequest(SECRET, update);
    twice.headers = { ...twice.headers, 'x-telegram-bot-api-secret-token': [SECRET, SECRET] as never };
    expect(await channel().inbound!(twice)).toMatchObject({ kind: 'reject', status: 401 });
    expect(await channel({ TG_TOKEN: TOKEN }).inbound!(telegramRequest(SECRET, update))).toMatchObject({
      kind: 'reject',
      status: 500,
    });
  });

  it('a verified body that is not an update is 400; other updates are ignored with 200', async () => {
    const bad = { ...telegramRequest(SECRET, {}), rawBody: Buffer.from('not json') };
    expect(await channel().inbound!(bad)).toMatchObject({ kind: 'reject', status: 400 });
    expect(await channel().inbound!(telegramRequest(SECRET, { update_id: 'x' }))).toMatchObject({
      status: 400,
    });
    const plain = { update_id: 3, message: { message_id: 1, chat: { id: 1 }, from: { id: 2 }, text: 'hi' } };
    expect(await channel().inbound!(telegramRequest(SECRET, plain))).toEqual({
      kind: 'ignore',
      response: { status: 200 },
    });
  });
});

describe('telegram channel: after resolution and set-up', () => {
  const receipt = { ref: '4242:77', recipient: '4242', chatId: '4242', messageId: 77 };

  it.each([
    [{ status: 'ANSWERED', answer: true, answeredBy: 'tg:777' }, 'Answered by user 777: Yes'],
    [{ status: 'ANSWERED', answer: 'x', answeredBy: 'ops', format: 'TEXT' }, 'Answered in the inbox by ops'],
    [{ status: 'TIMED_OUT' }, 'Timed out'],
    [{ status: 'CANCELLED', cancelReason: '<b>no</b>' }, 'Cancelled: &lt;b&gt;no&lt;/b&gt;'],
    [{ status: 'ANSWERED', answer: null, sensitive: true, answeredBy: 'tg:777' }, 'Answered'],
  ] as const)('edits the message and removes its buttons (%o)', async (over, line) => {
    await channel().onResolved!(
      channelQuestion({ text: 'Ship <it>?', ...(over as Partial<ChannelQuestion>) }),
      receipt,
    );
    const call = tg.callsTo('editMessageText').at(-1)!;
    expect(call.args).toMatchObject({
      chat_id: '4242',
      message_id: 77,
      parse_mode: 'HTML',
      reply_markup: { inline_keyboard: [] },
    });
    expect(call.args.text).toBe(`Ship &lt;it&gt;?\n\n<i>${line}</i>`);
  });

  it('an edit of a long text stays within 4,096 characters; "not modified" is done, other errors retry', async () => {
    await channel().onResolved!(channelQuestion({ text: 'y'.repeat(5000), status: 'TIMED_OUT' }), receipt);
    expect(htmlProblem(String(tg.callsTo('editMessageText').at(-1)!.args.text), 'HTML')).toBeNull();
    tg.failNext('editMessageText', 400, 'Bad Request: message is not modified');
    await expect(
      channel().onResolved!(channelQuestion({ status: 'TIMED_OUT' }), receipt),
    ).resolves.toBeUndefined();
    tg.failNext('editMessageText', 429, 'Too Many Requests: retry after 5');
    await expect(channel().onResolved!(channelQuestion({ status: 'TIMED_OUT' }), receipt)).rejects.toThrow(
      '429',
    );
    const edits = tg.callsTo('editMessageText').length;
    await channel().onResolved!(channelQuestion({ status: 'TIMED_OUT' }), null);
    expect(tg.callsTo('editMessageText').length).toBe(edits);
  });

  it('setup() registers the inbound door with the secret token; a secret Telegram would refuse is explained', async () => {
    const line = await channel().setup!();
    expect(tg.callsTo('setWebhook').at(-1)!.args).toEqual({
      url: 'https://tai.example/api/interactions/channels/tg',
      secret_token: SECRET,
      allowed_updates: ['message', 'callback_query'],
    });
    expect(line).toContain('https://tai.example/api/interactions/channels/tg');
    expect(line).not.toContain(SECRET);
    const bad = await channel({ TG_TOKEN: TOKEN, TG_SECRET: 'has spaces!' }).setup!().catch((e: Error) => e);
    expect((bad as Error).message).toMatch(/TG_SECRET.*A-Z/);
    expect((bad as Error).message).not.toContain('has spaces');
    tg.failNext('setWebhook', 400, 'Bad Request: bad webhook: HTTPS url must be provided for webhook');
    await expect(channel().setup!()).rejects.toThrow('HTTPS url must be provided');
  });
});
