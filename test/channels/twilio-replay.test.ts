// Twilio replies cannot be replayed (issue 21): Twilio signs no timestamp, so a captured, correctly
// signed reply stays valid forever. The engine acts on a MessageSid once (the store's seenOnce,
// shared by every instance), and a reply answers only questions delivered before it was first
// seen. The real plugin, the real engine on both stores, two instances on one store, and a
// loopback fake of the Twilio REST API for delivery.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import { twilioPlugin } from '../../src/channels/twilio/plugin.ts';
import type { InboundRequest } from '../../src/channels/types.ts';
import { silentLogger } from '../../src/engine/logger.ts';
import { AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';
import { type FakeTwilio, startFakeTwilio, twilioRequest } from '../support/fakes/twilio.ts';

const SID = 'AC33333333333333333333333333333333';
const TOKEN = 'replay-twilio-token';
const PHONE = '+447700900321';
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
let twilio: FakeTwilio;
let sids = 0;

beforeAll(async () => {
  twilio = await startFakeTwilio(SID, TOKEN);
});
afterAll(() => twilio.close());

/** A reply as Twilio signs it, with a MessageSid of its own; `now` is when it arrives. */
function reply(body: string, now = Date.now()): InboundRequest {
  const sid = `SM${(++sids).toString(16).padStart(32, '0')}`;
  return { ...twilioRequest(TOKEN, { From: PHONE, Body: body, MessageSid: sid }), now };
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`twilio replies are acted on once (${kind})`, () => {
    let set: EngineSet;

    beforeEach(async () => {
      const channels = createChannelSet(
        {
          sms: {
            implementation: twilioPlugin as never,
            config: twilioPlugin.config.parse({
              accountSidEnv: 'TW_SID',
              authTokenEnv: 'TW_TOKEN',
              from: '+15005550006',
              apiUrl: twilio.apiUrl,
            }),
          },
        },
        {
          env: { TW_SID: SID, TW_TOKEN: TOKEN },
          logger: silentLogger,
          publicBaseUrl: 'https://tai.example',
        },
      );
      set = await startEngines(kind, 2, {}, { channels: channelPort(channels, { sms: 'twilio' }) });
    });
    afterEach(() => set.close());

    const [first, second] = [() => set.engines[0]!, () => set.engines[1]!];
    async function ask(text: string) {
      const r = await first().ask(
        AGENT,
        { text, format: 'CONFIRM', channel: 'sms', recipient: PHONE },
        { holdSeconds: 0 },
      );
      const sent = await twilio.waitForMessage((p) => (p.Body ?? '').includes(text));
      return { id: r.question.id, short: /^\[([A-Z][2-9]{2})\]/.exec(sent.Body!)![1]! };
    }
    const twiml = async (engine: ReturnType<typeof first>, req: InboundRequest) => {
      const r = await engine.channelInbound('sms', req);
      expect(r.kind).toBe('response');
      return (r as { response: { body?: unknown } }).response.body;
    };
    const question = (id: string) => first().get(OPS, id);

    it('a replayed, correctly signed reply changes nothing, on any instance, even after a new question', async () => {
      const k1 = await ask(`Restart the API? (${kind})`);
      const captured = reply('1');
      expect(await twiml(first(), captured)).toContain(`Recorded for ${k1.short}: Yes.`);
      expect(await question(k1.id)).toMatchObject({ status: 'ANSWERED', answer: true });

      // The same request again, on this instance and on the other: empty TwiML, nothing sent back.
      expect(await twiml(first(), { ...captured, now: Date.now() })).toBe(EMPTY_TWIML);
      expect(await twiml(second(), { ...captured, now: Date.now() })).toBe(EMPTY_TWIML);

      // A new question to the same number: the captured "1" must not answer it.
      const k2 = await ask(`Drop the cache? (${kind})`);
      expect(await twiml(second(), { ...captured, now: Date.now() })).toBe(EMPTY_TWIML);
      expect(await question(k2.id)).toMatchObject({ status: 'PENDING', answer: null });
      expect(await question(k1.id)).toMatchObject({ status: 'ANSWERED', answer: true });

      // A fresh reply (a new MessageSid) still answers it.
      expect(await twiml(second(), reply('no'))).toContain(`Recorded for ${k2.short}: No.`);
      expect(await question(k2.id)).toMatchObject({ status: 'ANSWERED', answer: false });
    });

    it('a replayed reply that named its question by reference changes nothing either', async () => {
      const k = await ask(`Rotate keys? (${kind})`);
      const captured = reply(`${k.short} 2`);
      expect(await twiml(first(), captured)).toContain(`Recorded for ${k.short}: No.`);
      expect(await twiml(second(), { ...captured, now: Date.now() })).toBe(EMPTY_TWIML);
      expect(await question(k.id)).toMatchObject({ status: 'ANSWERED', answer: false });
    });

    it('a reply first seen before a question was delivered does not answer it, by reference or not', async () => {
      const before = Date.now() - 1;
      const k = await ask(`Scale up? (${kind})`);
      expect(await twiml(first(), reply('1', before))).toContain(
        'There is no open question for this number.',
      );
      expect(await twiml(first(), reply(`${k.short} 1`, before))).toContain(
        `There is no open question ${k.short} for this number.`,
      );
      expect(await question(k.id)).toMatchObject({ status: 'PENDING' });
      // Seen after the delivery: answers.
      expect(await twiml(first(), reply('1'))).toContain(`Recorded for ${k.short}: Yes.`);
    });

    it('with two open questions, one delivered after the reply was first seen, the earlier one is answered', async () => {
      const older = await ask(`Older question? (${kind})`);
      const seen = Date.now();
      // Wait until the clock has passed `seen`, so the next delivery is strictly later.
      await expect.poll(() => Date.now()).toBeGreaterThan(seen);
      const newer = await ask(`Newer question? (${kind})`);
      expect(await twiml(first(), reply('yes', seen))).toContain(`Recorded for ${older.short}: Yes.`);
      expect(await question(older.id)).toMatchObject({ status: 'ANSWERED', answer: true });
      expect(await question(newer.id)).toMatchObject({ status: 'PENDING' });
    });
  });
}
