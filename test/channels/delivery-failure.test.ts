// CHANNEL_DELIVERY_FAILED tells the asker why: each built-in plugin's delivery error names the
// provider's status or error code, or the network error, against its loopback fake or a port
// where nothing listens; never a token, never a URL. The engine keeps the cause on one line,
// cut short, with anything shaped like a URL removed (a third-party plugin may put one there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackPlugin } from '../../src/channels/slack/plugin.ts';
import { telegramPlugin } from '../../src/channels/telegram/plugin.ts';
import { twilioPlugin } from '../../src/channels/twilio/plugin.ts';
import { webhookPlugin } from '../../src/channels/webhook.ts';
import { deliveryCause } from '../../src/engine/asking.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { type FakeTelegram, startFakeTelegram } from '../support/fakes/telegram.ts';
import { type FakeTwilio, startFakeTwilio } from '../support/fakes/twilio.ts';
import { freePort } from '../support/fixtures.ts';

const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-abc';
const SLACK_TOKEN = 'xoxb-delivery-failure-0001';
const TG_TOKEN = '123456:delivery-failure-token';
const TW_SID = 'AC22222222222222222222222222222222';
const TW_TOKEN = 'twilio-delivery-failure-token';
const HOOK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

let slack: FakeSlack;
let tg: FakeTelegram;
let twilio: FakeTwilio;
let receiver: HttpReceiver;
/** A loopback port where nothing listens. */
let closed: number;

beforeAll(async () => {
  [slack, tg, twilio, receiver, closed] = await Promise.all([
    startFakeSlack(SLACK_TOKEN),
    startFakeTelegram(TG_TOKEN),
    startFakeTwilio(TW_SID, TW_TOKEN),
    startReceiver(),
    freePort(),
  ]);
});
afterAll(async () => {
  await Promise.all([slack.close(), tg.close(), twilio.close(), receiver.close()]);
});

/** The delivery's error message (fails the test when it delivers). */
async function failure(deliver: () => Promise<unknown>): Promise<string> {
  const err = await deliver().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return (err as Error).message;
}

const slackChannel = (apiUrl: string) =>
  slackPlugin.create(
    slackPlugin.config.parse({ botTokenEnv: 'S_TOKEN', signingSecretEnv: 'S_SIGNING', apiUrl }),
    channelContext('ops-slack', { S_TOKEN: SLACK_TOKEN, S_SIGNING: 'signing-secret' }),
  );
const telegramChannel = (apiRoot: string) =>
  telegramPlugin.create(
    telegramPlugin.config.parse({ botTokenEnv: 'T_TOKEN', webhookSecretEnv: 'T_SECRET', apiRoot }),
    channelContext('tg', { T_TOKEN: TG_TOKEN, T_SECRET: 'tg_secret_0001' }),
  );
const twilioChannel = (apiUrl: string) =>
  twilioPlugin.create(
    twilioPlugin.config.parse({
      accountSidEnv: 'W_SID',
      authTokenEnv: 'W_TOKEN',
      from: '+15005550006',
      apiUrl,
      contentApiUrl: twilio.contentApiUrl,
    }),
    channelContext('sms', { W_SID: TW_SID, W_TOKEN: TW_TOKEN }),
  );
const webhookChannel = (url: string) =>
  webhookPlugin.create(
    webhookPlugin.config.parse({ url, secretEnv: 'H_SECRET' }),
    channelContext('bridge', { H_SECRET: HOOK_SECRET }),
  );

describe('a failed delivery says why', () => {
  it("slack: the platform's error code, or the network error", async () => {
    slack.failNext('chat.postMessage', 'channel_not_found');
    const q = channelQuestion();
    expect(await failure(() => slackChannel(slack.apiUrl).deliver(q, CALLBACK))).toBe(
      'slack chat.postMessage failed: channel_not_found',
    );
    const down = await failure(() => slackChannel(`http://127.0.0.1:${closed}/api/`).deliver(q, CALLBACK));
    expect(down).toBe('slack chat.postMessage failed: network error ECONNREFUSED');
  });

  it("telegram: the Bot API's code and description, or the network error; never the token", async () => {
    tg.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
    const q = channelQuestion({ recipient: '4242' });
    expect(await failure(() => telegramChannel(tg.apiRoot).deliver(q, CALLBACK))).toBe(
      'telegram sendMessage failed: 403 Forbidden: bot was blocked by the user',
    );
    const down = await failure(() => telegramChannel(`http://127.0.0.1:${closed}`).deliver(q, CALLBACK));
    expect(down).toBe('telegram sendMessage failed: network error ECONNREFUSED');
    expect(down).not.toContain(TG_TOKEN);
  });

  it("twilio: the HTTP status and Twilio's error code, or the network error", async () => {
    twilio.failNext('Messages', 400, 21211);
    const q = channelQuestion({ recipient: '+14155550100' });
    expect(await failure(() => twilioChannel(twilio.apiUrl).deliver(q, CALLBACK))).toMatch(
      /^twilio .+ failed: HTTP 400.*21211/,
    );
    const down = await failure(() => twilioChannel(`http://127.0.0.1:${closed}`).deliver(q, CALLBACK));
    expect(down).toMatch(/^twilio .+ failed: network error ECONNREFUSED$/);
  });

  it("webhook: the receiver's status, or the network error without the receiver's URL", async () => {
    receiver.respondWith(503);
    const q = channelQuestion();
    expect(await failure(() => webhookChannel(receiver.url).deliver(q, CALLBACK))).toBe(
      'the webhook receiver answered 503',
    );
    const url = `http://127.0.0.1:${closed}/hooks/T0KEN-IN-PATH`;
    const down = await failure(() => webhookChannel(url).deliver(q, CALLBACK));
    expect(down).toBe('the webhook receiver could not be reached: network error ECONNREFUSED');
  });
});

describe('deliveryCause', () => {
  it('keeps a plain cause as it is, and says so when there is none', () => {
    expect(deliveryCause(new Error('slack chat.postMessage failed: channel_not_found'))).toBe(
      'slack chat.postMessage failed: channel_not_found',
    );
    expect(deliveryCause(new Error(''))).toBe('no reason given');
    expect(deliveryCause('a string, not an Error')).toBe('no reason given');
  });

  it('removes URLs (a token may ride in one) and folds the message onto one line', () => {
    const err = new Error('POST https://api.telegram.org/bot123:SECRET/sendMessage\nfailed:\t500');
    expect(deliveryCause(err)).toBe('POST <url> failed: 500');
  });

  it('keeps 200 characters and cuts the 201st', () => {
    expect(deliveryCause(new Error('x'.repeat(200)))).toBe('x'.repeat(200));
    expect(deliveryCause(new Error('x'.repeat(201)))).toBe(`${'x'.repeat(200)}…`);
  });
});
