// The built-in plugins' `remind` (API.md §18) against the loopback fakes speaking each
// provider's wire format: Slack replies in the question's thread, Telegram replies to its
// message, Twilio sends a short SMS naming the reference. A receipt that names no message is
// refused (the step records the failure), and a provider error is thrown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackPlugin } from '../../src/channels/slack/plugin.ts';
import { telegramPlugin } from '../../src/channels/telegram/plugin.ts';
import { twilioPlugin } from '../../src/channels/twilio/plugin.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { type FakeTelegram, startFakeTelegram } from '../support/fakes/telegram.ts';
import { type FakeTwilio, startFakeTwilio } from '../support/fakes/twilio.ts';

const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-again';
const SID = 'AC22222222222222222222222222222222';
let slack: FakeSlack;
let tg: FakeTelegram;
let twilio: FakeTwilio;

beforeAll(async () => {
  slack = await startFakeSlack('xoxb-remind');
  tg = await startFakeTelegram('123:remind');
  twilio = await startFakeTwilio(SID, 'tw-token');
});
afterAll(async () => {
  await slack.close();
  await tg.close();
  await twilio.close();
});

describe('remind', () => {
  it('slack: a reply in the thread of the question’s message', async () => {
    const ch = slackPlugin.create(
      slackPlugin.config.parse({ botTokenEnv: 'T', signingSecretEnv: 'S', apiUrl: slack.apiUrl }),
      channelContext('ops-slack', { T: 'xoxb-remind', S: 's' }),
    );
    const q = channelQuestion({ text: 'Ship <it>?' });
    const receipt = await ch.deliver(q, CALLBACK);
    await ch.remind!(q, receipt, CALLBACK);
    const call = slack.callsTo('chat.postMessage').at(-1)!;
    expect(call.args).toMatchObject({ channel: receipt.channel, thread_ts: receipt.ts });
    expect(String(call.args.text)).toBe('Reminder: still waiting for an answer to "Ship &lt;it&gt;?"');
    await expect(ch.remind!(q, { recipient: 'C0123456789' }, CALLBACK)).rejects.toThrow(
      /names no slack message/,
    );
  });

  it('telegram: a reply to the question’s message', async () => {
    const ch = telegramPlugin.create(
      telegramPlugin.config.parse({ botTokenEnv: 'T', webhookSecretEnv: 'S', apiRoot: tg.apiRoot }),
      channelContext('tg', { T: '123:remind', S: 'tg_secret_1' }),
    );
    const q = channelQuestion({ text: 'Ship <it>?', recipient: '4242' });
    const receipt = await ch.deliver(q, CALLBACK);
    await ch.remind!(q, receipt, CALLBACK);
    const call = tg.callsTo('sendMessage').at(-1)!;
    expect(call.args).toMatchObject({
      chat_id: receipt.chatId,
      reply_parameters: { message_id: receipt.messageId },
      parse_mode: 'HTML',
    });
    expect(String(call.args.text)).toBe(
      'Reminder: still waiting for an answer to &quot;Ship &lt;it&gt;?&quot;',
    );
    await expect(ch.remind!(q, {}, CALLBACK)).rejects.toThrow(/names no telegram message/);
  });

  it('twilio: a short SMS that starts with the question’s reference', async () => {
    const ch = twilioPlugin.create(
      twilioPlugin.config.parse({
        accountSidEnv: 'SID',
        authTokenEnv: 'TOK',
        from: '+15005550006',
        apiUrl: twilio.apiUrl,
        contentApiUrl: twilio.contentApiUrl,
      }),
      channelContext('sms', { SID, TOK: 'tw-token' }),
    );
    const q = channelQuestion({ text: 'Ship it?', recipient: '+14155550100', format: 'TEXT' });
    const receipt = await ch.deliver(q, CALLBACK);
    await ch.remind!(q, receipt, CALLBACK);
    const sent = twilio.messages().at(-1)!;
    expect(sent.To).toBe('+14155550100');
    expect(sent.Body).toBe(
      `Reminder [${receipt.short}]: still waiting for your answer to "Ship it?". Reply ${receipt.short} <answer>.`,
    );
    await expect(ch.remind!(q, {}, CALLBACK)).rejects.toThrow(/names no twilio message/);
  });
});
