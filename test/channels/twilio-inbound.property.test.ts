// Whatever arrives at the Twilio inbound door, the plugin never throws, and nothing but a request
// signed with the auth token over this URL and these parameters can become an answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { twilioPlugin } from '../../src/channels/twilio/plugin.ts';
import type { InboundRequest } from '../../src/channels/types.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { signTwilio } from '../support/fakes/twilio.ts';

const TOKEN = 'twilio-token-for-properties';
const URL = 'https://tai.example/api/interactions/channels/sms';
const channel = twilioPlugin.create(
  twilioPlugin.config.parse({
    accountSidEnv: 'S',
    authTokenEnv: 'T',
    from: 'whatsapp:+15005550006',
    mode: 'whatsapp',
    apiUrl: 'http://127.0.0.1:9',
  }),
  channelContext('sms', { S: 'AC1', T: TOKEN }),
);

// Form fields shaped like Twilio's, with every value allowed to be wrong.
const fields = fc.record(
  {
    From: fc.oneof(fc.constantFrom('+14155550100', 'whatsapp:+14155550100'), fc.string({ maxLength: 16 })),
    Body: fc.oneof(
      fc.constantFrom('1', 'yes', 'K72 2', '[B34] no', 'STOP', ''),
      fc.string({ maxLength: 40 }),
    ),
    ButtonPayload: fc.oneof(fc.constant('tai:K72:1'), fc.string({ maxLength: 12 })),
    MessageSid: fc.oneof(fc.stringMatching(/^SM[0-9a-f]{32}$/), fc.string({ maxLength: 34 })),
  },
  { requiredKeys: [] },
);
const signatureHeader = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 40 }),
  fc.base64String({ minLength: 28, maxLength: 28 }),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
);
const ANY_QUESTION = fc.record({
  format: fc.constantFrom(...ANSWER_FORMATS),
  options: fc.option(fc.array(fc.string(), { maxLength: 4 })),
});

function request(raw: string, signature: unknown): InboundRequest {
  return {
    rawBody: Buffer.from(raw, 'utf8'),
    headers: { 'x-twilio-signature': signature as string | undefined },
    url: URL,
    now: Date.now(),
  };
}

describe('twilio inbound (property)', () => {
  it('without a valid signature: always a 401, never an answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fields.map((f) => new URLSearchParams(f).toString()),
          fc.string({ maxLength: 200 }),
        ),
        signatureHeader,
        async (raw, signature) => {
          expect(await channel.inbound!(request(raw, signature))).toMatchObject({
            kind: 'reject',
            status: 401,
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a signed request with one parameter changed afterwards is a 401', async () => {
    await fc.assert(
      fc.asyncProperty(fields, fc.string({ minLength: 1, maxLength: 8 }), async (f, extra) => {
        const signature = signTwilio(TOKEN, URL, f);
        const tampered = new URLSearchParams({ ...f, Body: `${f.Body ?? ''}${extra}` }).toString();
        expect(await channel.inbound!(request(tampered, signature))).toMatchObject({
          kind: 'reject',
          status: 401,
        });
      }),
      { numRuns: 200 },
    );
  });

  it('validly signed fields of any shape: a declared outcome, answers that never throw, TwiML for every outcome', async () => {
    await fc.assert(
      fc.asyncProperty(fields, ANY_QUESTION, fc.nat({ max: 3 }), async (f, shape, pending) => {
        const ev = await channel.inbound!(
          request(new URLSearchParams(f).toString(), signTwilio(TOKEN, URL, f)),
        );
        expect(['answer', 'ignore', 'reject']).toContain(ev.kind);
        if (ev.kind === 'reject') expect(ev.status).toBe(400);
        if (ev.kind === 'answer') {
          const q = channelQuestion(shape as never);
          ev.answer(q, { pendingForRecipient: pending });
          for (const outcome of [
            { kind: 'not-found' } as const,
            { kind: 'invalid', message: 'x', question: q, delivery: null } as const,
            { kind: 'recorded', question: q, delivery: { short: 'K72' } } as const,
          ]) {
            const res = await ev.respond(outcome);
            expect(res.status).toBe(200);
            expect(String(res.body)).toMatch(
              /^<\?xml version="1\.0" encoding="UTF-8"\?><Response>.*<\/Response>$/s,
            );
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
