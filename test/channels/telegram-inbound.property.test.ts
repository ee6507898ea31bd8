// Whatever arrives at the Telegram inbound door, the plugin never throws, and nothing without the
// exact secret token can become an answer.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telegramPlugin } from '../../src/channels/telegram/plugin.ts';
import type { ChannelInstance, InboundRequest } from '../../src/channels/types.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeTelegram, startFakeTelegram } from '../support/fakes/telegram.ts';

const SECRET = 'tg-secret-for-properties';
let tg: FakeTelegram;
let channel: ChannelInstance;

beforeAll(async () => {
  tg = await startFakeTelegram('1:tok');
  channel = telegramPlugin.create(
    telegramPlugin.config.parse({ botTokenEnv: 'T', webhookSecretEnv: 'S', apiRoot: tg.apiRoot }),
    channelContext('tg', { T: '1:tok', S: SECRET }),
  );
});
afterAll(() => tg.close());

const id = fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.string({ maxLength: 5 }), fc.double());
// Updates shaped like Telegram's, with every field allowed to be wrong.
const update = fc.oneof(
  fc.record(
    {
      update_id: id,
      callback_query: fc.record(
        {
          id: fc.string({ maxLength: 10 }),
          from: fc.record({ id }, { requiredKeys: [] }),
          data: fc.oneof(
            fc.constantFrom('tai:0', 'tai:1', 'tai:99', 'tai:1000'),
            fc.string({ maxLength: 70 }),
          ),
          message: fc.record({ message_id: id, chat: fc.record({ id }) }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      ),
      message: fc.record(
        {
          message_id: id,
          chat: fc.record({ id }),
          from: fc.record({ id }),
          text: fc.string({ maxLength: 30 }),
          reply_to_message: fc.record({ message_id: id }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);
const body = fc.oneof(
  update.map((u) => JSON.stringify(u)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b).toString('latin1')),
);
const secretHeader = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 40 }),
  fc.constant(`${SECRET} `),
  fc.constant(SECRET.slice(1)),
  fc.constant([SECRET]),
);
const ANY_QUESTION = fc.record({
  format: fc.constantFrom(...ANSWER_FORMATS),
  options: fc.option(fc.array(fc.string(), { maxLength: 4 })),
});

function request(raw: string, secret: unknown): InboundRequest {
  return {
    rawBody: Buffer.from(raw, 'utf8'),
    headers: { 'x-telegram-bot-api-secret-token': secret as string | undefined },
    url: 'https://tai.example/x',
    now: Date.now(),
  };
}

describe('telegram inbound (property)', () => {
  it('without the exact secret token: always a 401, never an answer', async () => {
    await fc.assert(
      fc.asyncProperty(body, secretHeader, async (raw, secret) => {
        expect(await channel.inbound!(request(raw, secret))).toMatchObject({ kind: 'reject', status: 401 });
      }),
      { numRuns: 300 },
    );
  });

  it('with the secret: a declared outcome for any body, answers that never throw, respond that answers 200', async () => {
    await fc.assert(
      fc.asyncProperty(body, ANY_QUESTION, async (raw, shape) => {
        const ev = await channel.inbound!(request(raw, SECRET));
        expect(['answer', 'ignore', 'reject']).toContain(ev.kind);
        if (ev.kind === 'reject') expect(ev.status).toBe(400);
        if (ev.kind === 'answer') {
          expect(ev.question).toHaveProperty('ref');
          expect(typeof ev.by).toBe('string');
          ev.answer(channelQuestion(shape as never));
          expect((await ev.respond({ kind: 'not-found' })).status).toBe(200);
        }
      }),
      { numRuns: 200 },
    );
  });
});
