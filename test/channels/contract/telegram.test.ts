// The channel contract for `telegram`: the fake Bot API, webhook updates posted with the secret
// token header exactly as Telegram posts them (the header is what is "signed": it must match).
import fc from 'fast-check';
import { TELEGRAM_INBOUND_MAX_BYTES } from '../../../src/channels/telegram/plugin.ts';
import { buttonPress, type FakeTelegram, startFakeTelegram } from '../../support/fakes/telegram.ts';
import type { ChannelHarness, Delivered } from './harness.ts';
import { runChannelContract, stringsOf } from './suite.ts';

const TOKEN = '123456:contract-telegram-token';
const SECRET = 'contract_telegram-secret_0001';
const HEADER = 'x-telegram-bot-api-secret-token';
const CHAT = 5150;
let tg: FakeTelegram;

const found =
  (method: string) =>
  async (marker: string): Promise<Delivered> => {
    const call = await tg.waitFor(method, (c) => String(c.args.text).includes(marker));
    return { strings: stringsOf(call.args), raw: call };
  };

const telegramHarness: ChannelHarness = {
  channel: 'ops-tg',
  async start() {
    tg = await startFakeTelegram(TOKEN);
    return {
      lines: [
        '  ops-tg:',
        '    plugin: telegram',
        '    config:',
        '      botTokenEnv: TELEGRAM_BOT_TOKEN',
        '      webhookSecretEnv: TELEGRAM_WEBHOOK_SECRET',
        `      defaultRecipient: "${CHAT}"`,
        `      apiRoot: ${tg.apiRoot}`,
      ],
      env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET },
    };
  },
  close: () => tg.close(),
  delivered: found('sendMessage'),
  async reminded(marker) {
    const call = await tg.waitFor('sendMessage', (c) => {
      const text = String(c.args.text);
      return text.startsWith('Reminder') && text.includes(marker);
    });
    return { strings: stringsOf(call.args), raw: call };
  },
  resolved: {
    edited: found('editMessageText'),
    says: {
      inbox: /Answered in the inbox by ops/,
      timedOut: /Timed out/,
      cancelled: (reason) => new RegExp(`Cancelled: ${reason}`),
      approvedWithChanges: /Answered in the inbox by ops: Approved with changes/,
    },
  },
  inbound: {
    answer(q, choice) {
      const messageId = (q.delivered.raw as { result: { message_id: number } }).result.message_id;
      const index = 'confirm' in choice ? (choice.confirm ? 1 : 0) : choice.select;
      return {
        body: Buffer.from(JSON.stringify(buttonPress(CHAT, messageId, `tai:${index}`))),
        headers: { 'content-type': 'application/json', [HEADER]: SECRET },
      };
    },
    by: '777',
    signed: { header: HEADER },
    forged: fc
      .record({
        update: fc.oneof(
          fc.integer({ min: 1, max: 50 }).map((m) => buttonPress(CHAT, m, 'tai:1')),
          fc.jsonValue(),
        ),
        secret: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/), { nil: undefined }),
      })
      .map(({ update, secret }) => ({
        body: Buffer.from(JSON.stringify(update) ?? ''),
        headers: {
          'content-type': 'application/json',
          ...(secret === undefined ? {} : { [HEADER]: secret }),
        },
      })),
    maxBytes: TELEGRAM_INBOUND_MAX_BYTES,
  },
};

runChannelContract(telegramHarness);
