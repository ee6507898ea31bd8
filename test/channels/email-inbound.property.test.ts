// Whatever arrives at the email channel's inbound door, for each provider: with the secret set,
// never a 500 and never an answer unless the provider's signature or credentials are right.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emailPlugin } from '../../src/channels/email/plugin.ts';
import type { InboundRequest } from '../../src/channels/types.ts';
import { channelContext } from '../support/fakes/channel-context.ts';
import {
  mailgunPost,
  postmarkPost,
  type ReplyMail,
  sendgridKeys,
  sendgridPost,
} from '../support/fakes/email-inbound.ts';

const keys = sendgridKeys();
const MAILGUN_BASIC = 'mailgun:property-route-password';
const SECRETS = {
  mailgun: 'key-property-mailgun',
  postmark: 'pm:property-password',
  sendgrid: keys.publicKey,
};
type Provider = keyof typeof SECRETS;

function channel(provider: Provider) {
  return emailPlugin.create(
    emailPlugin.config.parse({
      smtpUrlEnv: 'SMTP_URL',
      from: 'tai@example.com',
      inbound: {
        provider,
        secretEnv: 'INBOUND_SECRET',
        ...(provider === 'mailgun' ? { basicAuthEnv: 'INBOUND_BASIC' } : {}),
      },
    }),
    channelContext('mail', {
      SMTP_URL: 'smtp://127.0.0.1:1',
      INBOUND_SECRET: SECRETS[provider],
      INBOUND_BASIC: MAILGUN_BASIC,
    }),
  );
}

const mail = fc.record({
  from: fc.oneof(fc.constant('ana@example.com'), fc.string({ maxLength: 30 })),
  to: fc.string({ maxLength: 30 }),
  subject: fc.oneof(fc.constant('Re: [Q-ABCDEF] Ship it?'), fc.string({ maxLength: 60 })),
  text: fc.string({ maxLength: 60 }),
});
const headerValue = fc.stringMatching(/^[\x21-\x7e]{0,60}$/);
const headers = fc.dictionary(
  fc.constantFrom(
    'content-type',
    'authorization',
    'x-twilio-email-event-webhook-signature',
    'x-twilio-email-event-webhook-timestamp',
  ),
  fc.oneof(
    headerValue,
    fc.constantFrom(
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ),
  ),
);
const body = fc.oneof(
  fc.string({ maxLength: 300 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
);

/** A request shaped like each provider's, with the wrong key, or anything at all. */
function forged(provider: Provider) {
  const wrong = (m: ReplyMail) =>
    provider === 'mailgun'
      ? mailgunPost('key-guess', m, { basic: MAILGUN_BASIC })
      : provider === 'postmark'
        ? postmarkPost('pm:guess', m)
        : sendgridPost(sendgridKeys(), m);
  return fc.oneof(
    mail.map((m) => wrong(m)),
    fc.record({ body, headers }),
    fc.record({ m: mail, h: headers }).map(({ m, h }) => ({ body: wrong(m).body, headers: h })),
  );
}

/** The store's `once`, as the engine hands it to the plugin: each key taken once. */
const taken = new Set<string>();
const request = (r: { body: Buffer; headers: Record<string, string> }): InboundRequest => ({
  rawBody: r.body,
  headers: r.headers,
  url: 'https://tai.example/api/interactions/channels/mail',
  now: Date.now(),
  once: async (key) => !taken.has(key) && Boolean(taken.add(key)),
});

describe('email inbound (property)', () => {
  for (const provider of ['mailgun', 'postmark', 'sendgrid'] as const) {
    it(`${provider}: forged or malformed requests are refused (400/401), never 500, never an answer`, async () => {
      const door = channel(provider);
      await fc.assert(
        fc.asyncProperty(forged(provider), async (r) => {
          const ev = await door.inbound!(request(r));
          expect(ev.kind).toBe('reject');
          if (ev.kind === 'reject') expect([400, 401]).toContain(ev.status);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('a correctly signed reply of each provider is an answer (the property can fail)', async () => {
    const reply = {
      from: 'ana@example.com',
      to: 'r@in.example.com',
      subject: 'Re: [Q-ABCDEF] x',
      text: 'yes',
    };
    const posts = {
      mailgun: mailgunPost(SECRETS.mailgun, reply, { basic: MAILGUN_BASIC }),
      postmark: postmarkPost(SECRETS.postmark, reply),
      sendgrid: sendgridPost(keys, reply),
    };
    for (const provider of ['mailgun', 'postmark', 'sendgrid'] as const) {
      expect((await channel(provider).inbound!(request(posts[provider]))).kind, provider).toBe('answer');
    }
  });
});
