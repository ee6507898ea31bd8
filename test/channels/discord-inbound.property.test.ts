// Whatever arrives at the Discord interactions endpoint, the plugin never throws, and nothing but
// a request signed with the application's Ed25519 key (within the window) can become an answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discordPlugin } from '../../src/channels/discord/plugin.ts';
import type { InboundRequest } from '../../src/channels/types.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { interactionKeys } from '../support/fakes/discord-api.ts';
import { DISCORD_APP } from '../support/fakes/discord-requests.ts';

const NOW = 1_800_000_000_000;
const keys = interactionKeys();
const channel = discordPlugin.create(
  discordPlugin.config.parse({
    botTokenEnv: 'T',
    publicKey: keys.publicKey,
    applicationId: DISCORD_APP,
    apiUrl: 'http://127.0.0.1:9/api/v10',
  }),
  channelContext('ops-discord', { T: 'bot-token' }),
);

const questionId = fc.oneof(fc.constant('q_1'), fc.string({ maxLength: 12 }));
const customId = fc.oneof(
  questionId.map((id) => `tai:c:${id}:1`),
  questionId.map((id) => `tai:s:${id}:2`),
  questionId.map((id) => `tai:m:${id}:0`),
  questionId.map((id) => `tai:t:${id}`),
  questionId.map((id) => `tai:f:${id}`),
  questionId.map((id) => `tai:x:${id}`),
  fc.string({ maxLength: 30 }),
);
// Interactions shaped like Discord's, with every field allowed to be wrong.
const interaction = fc.oneof(
  fc.record(
    {
      id: fc.oneof(fc.constant('1200000000000000001'), fc.string({ maxLength: 8 })),
      application_id: fc.constant(DISCORD_APP),
      type: fc.oneof(fc.constantFrom(1, 2, 3, 4, 5), fc.integer()),
      token: fc.oneof(fc.constant('tok'), fc.string({ maxLength: 8 })),
      member: fc.oneof(
        fc.record({ user: fc.record({ id: fc.constant('80351110224678912') }) }),
        fc.anything(),
      ),
      data: fc.record(
        {
          custom_id: customId,
          component_type: fc.constantFrom(2, 3),
          values: fc.array(fc.oneof(fc.constant('1'), fc.string({ maxLength: 4 })), { maxLength: 2 }),
          components: fc.array(
            fc.oneof(
              fc.record({
                type: fc.constant(1),
                components: fc.array(
                  fc.record({
                    custom_id: fc.constantFrom('v', 'f:0', 'f:1'),
                    value: fc.string({ maxLength: 8 }),
                  }),
                  { maxLength: 2 },
                ),
              }),
              fc.anything(),
            ),
            { maxLength: 3 },
          ),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.jsonValue(),
);
const body = fc.oneof(
  interaction.map((i) => JSON.stringify(i)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
);
const headerValue = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 130 }),
  fc.uint8Array({ minLength: 64, maxLength: 64 }).map((b) => Buffer.from(b).toString('hex')),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
);

function request(raw: string, headers: InboundRequest['headers']): InboundRequest {
  return { rawBody: Buffer.from(raw, 'utf8'), headers, url: 'https://tai.example/x', now: NOW };
}
const signed = (raw: string) => keys.signer.headers(raw, NOW / 1000);

const ANY_QUESTION = fc.record({
  format: fc.constantFrom(...ANSWER_FORMATS),
  options: fc.option(fc.array(fc.string(), { maxLength: 4 })),
  schema: fc.option(
    fc.oneof(
      fc.constant({ type: 'object', properties: { a: { type: 'integer' }, b: { enum: [1, 'x'] } } }),
      fc.object(),
    ),
  ),
});

describe('discord inbound (property)', () => {
  it('never throws and never yields anything but a 401 without a valid signature', async () => {
    await fc.assert(
      fc.asyncProperty(body, headerValue, headerValue, async (raw, sig, ts) => {
        const ev = await channel.inbound!(
          request(raw, { 'x-signature-ed25519': sig, 'x-signature-timestamp': ts }),
        );
        expect(ev).toMatchObject({ kind: 'reject', status: 401 });
      }),
      { numRuns: 300 },
    );
  });

  it('a valid signature with one character of the body or signature changed is a 401', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.nat(), fc.boolean(), async (raw, at, inSignature) => {
        const headers = signed(raw);
        let signature = headers['x-signature-ed25519']!;
        let sent = raw;
        if (inSignature || raw.length === 0) {
          const i = at % signature.length;
          signature = `${signature.slice(0, i)}${signature[i] === 'a' ? 'b' : 'a'}${signature.slice(i + 1)}`;
        } else {
          const i = at % raw.length;
          sent = `${raw.slice(0, i)}${raw[i] === 'a' ? 'b' : 'a'}${raw.slice(i + 1)}`;
        }
        const ev = await channel.inbound!(request(sent, { ...headers, 'x-signature-ed25519': signature }));
        expect(ev).toMatchObject({ kind: 'reject', status: 401 });
      }),
      { numRuns: 200 },
    );
  });

  it('validly signed bodies of any shape: a declared outcome, and answers that never throw', async () => {
    await fc.assert(
      fc.asyncProperty(body, ANY_QUESTION, async (raw, shape) => {
        const ev = await channel.inbound!(request(raw, signed(raw)));
        expect(['answer', 'show', 'ignore', 'reject']).toContain(ev.kind);
        if (ev.kind === 'reject') expect(ev.status).toBe(400);
        if (ev.kind === 'ignore') expect(ev.response.status).toBe(200);
        if (ev.kind === 'answer') {
          expect(typeof ev.by).toBe('string');
          expect(ev.dedupe?.id).toMatch(/^interaction:\d+$/);
          // Answered within the deferral window: nothing is sent to Discord.
          ev.answer(channelQuestion(shape as never));
          const res = await ev.respond({ kind: 'recorded', question: channelQuestion(), delivery: null });
          expect(res.status).toBe(200);
        }
        if (ev.kind === 'show') {
          const res = await ev.respond({
            kind: 'pending',
            question: channelQuestion(shape as never),
            delivery: null,
          });
          expect(res.status).toBe(200);
        }
      }),
      { numRuns: 300 },
    );
  });
});
