// The loopback fakes of Telegram and Twilio refuse what the real providers refuse, each published
// limit at the limit (taken) and one past it (refused with the provider's error shape). Slack's
// are in slack-limits.test.ts. Also: a sensitive TEXT question by SMS never asks to be texted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFromReply, howToAnswer, messageBody } from '../../src/channels/twilio/messages.ts';
import { channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeTelegram, startFakeTelegram } from '../support/fakes/telegram.ts';
import { type FakeTwilio, startFakeTwilio } from '../support/fakes/twilio.ts';

const TG_TOKEN = '123456:fake-limits-token';
const SID = 'AC22222222222222222222222222222222';
const AUTH = 'fake-limits-auth-token';
let tg: FakeTelegram;
let twilio: FakeTwilio;

beforeAll(async () => {
  tg = await startFakeTelegram(TG_TOKEN);
  twilio = await startFakeTwilio(SID, AUTH);
});
afterAll(async () => {
  await tg.close();
  await twilio.close();
});

async function telegram(method: string, args: Record<string, unknown>) {
  const res = await fetch(`${tg.apiRoot}/bot${TG_TOKEN}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const keyboard = (button: Record<string, unknown>) => ({ inline_keyboard: [[button]] });
const message = (over: Record<string, unknown>) => ({ chat_id: 4242, text: 'Ship it?', ...over });

/** [limit, the call with `n` of the measured thing, the limit, Telegram's description past it]. */
type TelegramCase = [string, string, (n: number) => Record<string, unknown>, number, string];

const telegramCases: TelegramCase[] = [
  [
    'message text (characters after parsing)',
    'sendMessage',
    (n) => message({ text: 'x'.repeat(n) }),
    4096,
    'Bad Request: message is too long',
  ],
  [
    'message text in HTML mode (an entity counts once)',
    'sendMessage',
    (n) => message({ text: `<i>${'&amp;'.repeat(n)}</i>`, parse_mode: 'HTML' }),
    4096,
    'Bad Request: message is too long',
  ],
  [
    'edited text',
    'editMessageText',
    (n) => ({ chat_id: 4242, message_id: 101, text: 'y'.repeat(n) }),
    4096,
    'Bad Request: message is too long',
  ],
  [
    'callback_data (bytes)',
    'sendMessage',
    (n) => message({ reply_markup: keyboard({ text: 'Yes', callback_data: 'd'.repeat(n) }) }),
    64,
    'Bad Request: BUTTON_DATA_INVALID',
  ],
  [
    'ForceReply placeholder',
    'sendMessage',
    (n) => message({ reply_markup: { force_reply: true, input_field_placeholder: 'p'.repeat(n) } }),
    64,
    'Bad Request: INPUT_FIELD_PLACEHOLDER_INVALID',
  ],
  [
    'answerCallbackQuery notice',
    'answerCallbackQuery',
    (n) => ({ callback_query_id: 'cq1', text: 'n'.repeat(n) }),
    200,
    'Bad Request: MESSAGE_TOO_LONG',
  ],
];

describe('the fake Telegram refuses what Telegram refuses', () => {
  it.each(telegramCases)(
    '%s: taken at the limit, refused one past it',
    async (_name, method, make, limit, description) => {
      const at = await telegram(method, make(limit));
      expect(at.body.ok, JSON.stringify(at.body)).toBe(true);
      const past = await telegram(method, make(limit + 1));
      expect(past).toEqual({ status: 400, body: { ok: false, error_code: 400, description } });
    },
  );

  it('a button without text, a URL button that is not http(s), and a text that is empty are refused', async () => {
    expect(
      (
        await telegram(
          'sendMessage',
          message({ reply_markup: keyboard({ text: 'Open', url: 'https://x.example/' }) }),
        )
      ).body.ok,
    ).toBe(true);
    expect(
      (
        await telegram(
          'sendMessage',
          message({ reply_markup: keyboard({ text: ' ', callback_data: 'tai:1' }) }),
        )
      ).body,
    ).toMatchObject({ ok: false, description: 'Bad Request: BUTTON_TEXT_INVALID' });
    expect(
      (
        await telegram(
          'sendMessage',
          message({ reply_markup: keyboard({ text: 'Open', url: 'javascript:alert(1)' }) }),
        )
      ).body,
    ).toMatchObject({ ok: false, description: 'Bad Request: BUTTON_URL_INVALID' });
    expect(
      (
        await telegram(
          'sendMessage',
          message({ reply_markup: keyboard({ text: 'Open', callback_data: '' }) }),
        )
      ).body,
    ).toMatchObject({ ok: false, description: 'Bad Request: BUTTON_DATA_INVALID' });
    expect(
      (await telegram('sendMessage', message({ text: '<i></i>', parse_mode: 'HTML' }))).body,
    ).toMatchObject({ ok: false, description: 'Bad Request: message text is empty' });
  });
});

async function twilioMessage(params: Record<string, string>) {
  const res = await fetch(`${twilio.apiUrl}/2010-04-01/Accounts/${SID}/Messages.json`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${SID}:${AUTH}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the fake Twilio refuses what Twilio refuses', () => {
  const to = { To: '+14155550100', From: '+15005550006' };

  it('a body of 1,600 characters is sent; 1,601 is error 21617', async () => {
    expect(await twilioMessage({ ...to, Body: 'b'.repeat(1600) })).toMatchObject({
      status: 201,
      body: { status: 'queued' },
    });
    expect(await twilioMessage({ ...to, Body: 'b'.repeat(1601) })).toEqual({
      status: 400,
      body: {
        code: 21617,
        message: 'The concatenated message body exceeds the 1600 character limit.',
        status: 400,
      },
    });
  });

  it('no body is error 21602; no recipient is error 21604', async () => {
    expect(await twilioMessage({ ...to })).toMatchObject({ status: 400, body: { code: 21602 } });
    expect(await twilioMessage({ From: to.From, Body: 'x' })).toMatchObject({
      status: 400,
      body: { code: 21604 },
    });
  });
});

describe('twilio: a sensitive TEXT question is never answered by text', () => {
  const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-abc';
  const q = channelQuestion({ format: 'TEXT', sensitive: true, recipient: '+14155550100', text: 'PIN?' });

  it('the message points to the answer page and asks for no reply', () => {
    const body = messageBody(q, 'K72', CALLBACK);
    expect(body).toBe(
      `[K72] PIN?\n\nThis answer is sensitive: do not text it. Answer on this page: ${CALLBACK}`,
    );
    expect(body).not.toContain('Reply with your answer');
  });

  it('a reply texted anyway is no answer, and the sender is told where to answer', () => {
    expect(answerFromReply(q, '4321')).toBeUndefined();
    expect(answerFromReply({ ...q, sensitive: false }, '4321')).toBe('4321');
    expect(howToAnswer(q, 'K72')).toBe(
      'K72 is sensitive and is not answered by text: use the page linked in its message, and delete your reply.',
    );
  });
});
