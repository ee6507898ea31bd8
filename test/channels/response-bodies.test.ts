// Outgoing calls read bounded responses (issue 21): a receiver that answers 200 with a body
// claiming 512 MiB and streaming without end costs each call a few KiB, and the call completes.
// Measured by what the receiver managed to hand over before the caller hung up (an upper bound
// on what was read), and by the process's resident memory, never by time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import { PROVIDER_RESPONSE_MAX_BYTES } from '../../src/channels/response-body.ts';
import { createNotifier } from '../../src/channels/slack/notifier.ts';
import { telegramPlugin } from '../../src/channels/telegram/plugin.ts';
import { twilioPlugin } from '../../src/channels/twilio/plugin.ts';
import { webhookPlugin } from '../../src/channels/webhook.ts';
import { silentLogger } from '../../src/engine/logger.ts';
import { createResumeWebhooks } from '../../src/engine/outbox/resume-webhooks.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type Flood, startFlood } from '../support/fakes/flood.ts';
import { cancelledRunsQuestion, webhookItemOf, webhookSecret } from '../webhooks/receiver.ts';

const MiB = 1024 * 1024;
/** What the receiver may hand over: what was read plus the loopback socket buffers. */
const WRITTEN_MAX = 16 * MiB;
/** Resident memory growth allowed per call (reading the body whole grew it by 1.3 GB). */
const RSS_MAX = 128 * MiB;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

let flood: Flood;
let chunked: Flood;
let calls = 0;
let chunkedCalls = 0;
beforeAll(async () => {
  flood = await startFlood();
  chunked = await startFlood(undefined, { chunked: true });
});
afterAll(async () => {
  await flood.close();
  await chunked.close();
});

/** Runs one outgoing call against the flood; returns its outcome, the bytes handed over and the RSS growth. */
async function against<T>(
  call: () => Promise<T>,
  receiver: 'flood' | 'chunked' = 'flood',
): Promise<{ outcome: PromiseSettledResult<T>; written: number }> {
  const n = receiver === 'flood' ? calls++ : chunkedCalls++;
  const rss = process.memoryUsage().rss;
  const [outcome] = await Promise.allSettled([call()]);
  const written = await (receiver === 'flood' ? flood : chunked).written(n);
  expect(process.memoryUsage().rss - rss).toBeLessThan(RSS_MAX);
  expect(written).toBeLessThan(WRITTEN_MAX);
  return { outcome: outcome!, written };
}

describe('outgoing calls against a 512 MiB endless body', () => {
  it('the webhook channel delivers (the body is not read past a few KiB)', async () => {
    const channel = webhookPlugin.create(
      webhookPlugin.config.parse({ url: `${flood.url}/questions`, secretEnv: 'S' }),
      channelContext('bridge', { S: SECRET }),
    );
    const { outcome } = await against(() => channel.deliver(channelQuestion(), 'https://tai.example/cb'));
    expect(outcome).toMatchObject({ status: 'fulfilled', value: { messageId: 'msg_q_01HZXAMPLE_asked' } });
    const resolved = await against(() =>
      channel.onResolved!(channelQuestion({ status: 'CANCELLED' }), { messageId: 'x' }),
    );
    expect(resolved.outcome.status).toBe('fulfilled');
  });

  it("Slack's response_url reply completes", async () => {
    const ctx = channelContext('ops-slack', {});
    const notifier = createNotifier(ctx, () => {
      throw new Error('no Web API here');
    });
    const { outcome } = await against(() => notifier.tell(`${flood.url}/actions/T1/1/x`, 'Recorded'));
    expect(outcome.status).toBe('fulfilled');
    expect(ctx.logs).toEqual([]);
  });

  it("Twilio: the template delete completes; a create's answer too large to be Twilio's fails the delivery", async () => {
    const channel = twilioPlugin.create(
      twilioPlugin.config.parse({
        accountSidEnv: 'S',
        authTokenEnv: 'T',
        from: '+15005550006',
        apiUrl: flood.url,
        contentApiUrl: flood.url,
      }),
      channelContext('sms', { S: 'AC1', T: 'token' }),
    );
    const removed = await against(() =>
      channel.onResolved!(channelQuestion({ status: 'ANSWERED' }), { contentSid: `HX${'a'.repeat(32)}` }),
    );
    expect(removed.outcome.status).toBe('fulfilled');
    const created = await against(() =>
      channel.deliver(channelQuestion({ recipient: '+14155550100' }), 'https://tai.example/cb'),
    );
    expect(created.outcome).toMatchObject({
      status: 'rejected',
      reason: { message: 'twilio Messages returned no sid' },
    });
  });

  it.each(['flood', 'chunked'] as const)('a resume webhook is done (%s body)', async (receiver) => {
    const NOW = Date.now();
    const url = `${(receiver === 'flood' ? flood : chunked).url}/hooks`;
    const handle = createResumeWebhooks({
      endpoints: { runs: { url, secret: webhookSecret() } },
      logger: silentLogger,
    });
    const question = cancelledRunsQuestion(NOW);
    const item = webhookItemOf(NOW);
    try {
      const { outcome } = await against(() => handle(item, question, 'runs'), receiver);
      expect(outcome).toMatchObject({ status: 'fulfilled', value: { kind: 'done' } });
    } finally {
      await handle.close();
    }
  });

  it(`a provider client library reading through ctx.fetch gets at most ${PROVIDER_RESPONSE_MAX_BYTES / MiB} MiB, then the call fails`, async () => {
    const set = createChannelSet(
      {
        'ops-tg': {
          implementation: telegramPlugin as never,
          config: telegramPlugin.config.parse({
            botTokenEnv: 'TG',
            webhookSecretEnv: 'TGS',
            defaultRecipient: '5150',
            apiRoot: flood.url,
          }),
        },
      },
      { env: { TG: '123:abc', TGS: 'secret' }, logger: silentLogger, publicBaseUrl: 'https://tai.example' },
    );
    const { outcome, written } = await against(() =>
      set.get('ops-tg')!.deliver(channelQuestion({ recipient: '5150' }), 'https://tai.example/cb'),
    );
    expect(outcome.status).toBe('rejected');
    expect(written).toBeGreaterThan(PROVIDER_RESPONSE_MAX_BYTES);
    await set.close();
  });
});
