// The channel contract for `twilio` (SMS): the fake REST API, inbound messages posted as Twilio
// posts them, signed (HMAC-SHA1) over the public URL and the sorted form parameters. A text
// cannot be edited, so there is no `resolved`; a replay is the same MessageSid again.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { type FakeTwilio, signTwilio, startFakeTwilio } from '../../support/fakes/twilio.ts';
import type { ChannelHarness, InboundHttp } from './harness.ts';
import { runChannelContract, stringsOf } from './suite.ts';

const SID = 'AC33333333333333333333333333333333';
const TOKEN = 'contract-twilio-auth-token';
const PHONE = '+447700900321';
/** The test server's INTERACTIONS_PUBLIC_BASE_URL: Twilio signs the URL it was configured with. */
const SIGNED_URL = 'http://127.0.0.1:4000/api/interactions/channels/ops-sms';
let twilio: FakeTwilio;

function message(body: string, signature?: (params: Record<string, string>) => string): InboundHttp {
  const params = {
    MessageSid: `SM${randomBytes(16).toString('hex')}`,
    AccountSid: SID,
    From: PHONE,
    To: '+15005550006',
    Body: body,
    NumMedia: '0',
  };
  return {
    body: Buffer.from(new URLSearchParams(params).toString()),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signature ? signature(params) : signTwilio(TOKEN, SIGNED_URL, params),
    },
  };
}

const twilioHarness: ChannelHarness = {
  channel: 'ops-sms',
  async start() {
    twilio = await startFakeTwilio(SID, TOKEN);
    return {
      lines: [
        '  ops-sms:',
        '    plugin: twilio',
        '    config:',
        '      accountSidEnv: TWILIO_ACCOUNT_SID',
        '      authTokenEnv: TWILIO_AUTH_TOKEN',
        '      from: "+15005550006"',
        '      mode: sms',
        `      defaultRecipient: "${PHONE}"`,
        `      apiUrl: ${twilio.apiUrl}`,
      ],
      env: { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN },
    };
  },
  close: () => twilio.close(),
  async delivered(marker) {
    const sent = await twilio.waitForMessage((p) => (p.Body ?? '').includes(marker));
    return { strings: stringsOf(sent), raw: sent };
  },
  async reminded(marker) {
    const sent = await twilio.waitForMessage(
      (p) => (p.Body ?? '').startsWith('Reminder') && (p.Body ?? '').includes(marker),
    );
    return { strings: stringsOf(sent), raw: sent };
  },
  inbound: {
    answer(q, choice) {
      const short = /^\[([A-Z][2-9]{2})\]/.exec((q.delivered.raw as { Body: string }).Body)![1]!;
      // "Reply 1 for Yes, 2 for No"; options are numbered from 1.
      const digit = 'confirm' in choice ? (choice.confirm ? 1 : 2) : choice.select + 1;
      return message(`${short} ${digit}`);
    },
    by: PHONE,
    signed: 'body',
    forged: fc
      .record({
        body: fc.oneof(fc.constantFrom('1', '2', 'yes', 'STOP'), fc.string({ maxLength: 40 })),
        signature: fc.oneof(fc.base64String({ minLength: 28, maxLength: 28 }), fc.constant('')),
      })
      .map(({ body, signature }) => message(body, () => signature)),
    maxBytes: 65_536,
  },
};

runChannelContract(twilioHarness);
