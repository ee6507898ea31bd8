// The `email` channel's harness, with or without replies by mail: a real SMTP server
// (smtp-server) takes the mail and a real parser (mailparser) reads it. Mail cannot be edited:
// with `notifyOnResolved` the outcome is a follow-up mail. Without `inbound` the door is the
// uniform 404 and the person answers through the links (the callback door). With it, each
// provider's reply is posted as that provider posts it (test/support/fakes/email-inbound.ts).
import fc from 'fast-check';
import { EMAIL_INBOUND_MAX_BYTES } from '../../../src/channels/email/inbound.ts';
import {
  type InboundPost,
  mailgunPost,
  postmarkPost,
  type ReplyMail,
  type SendgridKeys,
  sendgridKeys,
  sendgridPost,
} from '../../support/fakes/email-inbound.ts';
import { type FakeSmtp, type ReceivedMail, startFakeSmtp } from '../../support/fakes/smtp.ts';
import type { ChannelHarness, Delivered, Signed } from './harness.ts';

const PERSON = 'ana@example.com';
const INBOUND_ADDRESS = 'reply@in.example.com';
/** The credentials in Mailgun's route URL (`inbound.basicAuthEnv`). */
const MAILGUN_BASIC = 'mailgun:contract-route-password';

interface Provider {
  name: 'mailgun' | 'postmark' | 'sendgrid';
  secret: string;
  post(mail: ReplyMail): InboundPost;
  signed: Signed;
  /** A request shaped like the provider's but signed with the wrong secret. */
  forge(mail: ReplyMail): InboundPost;
}

function provider(name: Provider['name']): Provider {
  if (name === 'mailgun') {
    return {
      name,
      secret: 'key-contract-mailgun-signing',
      post: (m) => mailgunPost('key-contract-mailgun-signing', m, { basic: MAILGUN_BASIC }),
      forge: (m) => mailgunPost('key-wrong', m, { basic: MAILGUN_BASIC }),
      signed: { bodyFields: ['timestamp', 'token', 'signature'] },
    };
  }
  if (name === 'postmark') {
    return {
      name,
      secret: 'postmark:contract-basic-password',
      post: (m) => postmarkPost('postmark:contract-basic-password', m),
      forge: (m) => postmarkPost('postmark:guess', m),
      signed: { header: 'authorization' },
    };
  }
  const keys: SendgridKeys = sendgridKeys();
  const wrong: SendgridKeys = sendgridKeys();
  return {
    name,
    secret: keys.publicKey,
    post: (m) => sendgridPost(keys, m),
    forge: (m) => sendgridPost(wrong, m),
    signed: 'body',
  };
}

export function emailHarness(inboundProvider?: Provider['name']): ChannelHarness {
  let smtp: FakeSmtp;
  const p = inboundProvider ? provider(inboundProvider) : null;
  const channel = p ? `mail-${p.name}` : 'ops-mail';
  const shown = (m: ReceivedMail): Delivered => ({
    strings: [m.parsed.subject ?? '', m.parsed.text ?? '', String(m.parsed.html || '')],
    raw: m,
  });
  const mail = (followUp: boolean) => async (marker: string) =>
    shown(
      await smtp.waitFor(
        (m) =>
          (m.parsed.subject ?? '').startsWith('Re: ') === followUp && (m.parsed.text ?? '').includes(marker),
      ),
    );
  const subjectOf = (d: Delivered) => (d.raw as ReceivedMail).parsed.subject ?? '';

  return {
    channel,
    async start() {
      smtp = await startFakeSmtp('tai', 'contract-smtp-password');
      return {
        lines: [
          `  ${channel}:`,
          '    plugin: email',
          '    config:',
          '      smtpUrlEnv: SMTP_URL',
          '      from: tai@example.com',
          `      defaultRecipient: ${PERSON}`,
          '      notifyOnResolved: true',
          ...(p
            ? [
                `      inbound: { provider: ${p.name}, secretEnv: INBOUND_SECRET, address: ${INBOUND_ADDRESS}${p.name === 'mailgun' ? ', basicAuthEnv: INBOUND_BASIC' : ''} }`,
              ]
            : []),
        ],
        env: {
          SMTP_URL: smtp.url,
          ...(p ? { INBOUND_SECRET: p.secret } : {}),
          ...(p?.name === 'mailgun' ? { INBOUND_BASIC: MAILGUN_BASIC } : {}),
        },
      };
    },
    close: () => smtp.close(),
    delivered: mail(false),
    reminded: async (marker) =>
      shown(
        await smtp.waitFor(
          (m) => (m.parsed.subject ?? '').startsWith('Reminder: ') && (m.parsed.text ?? '').includes(marker),
        ),
      ),
    resolved: {
      edited: mail(true),
      says: {
        inbox: /Answered in the inbox by ops/,
        timedOut: /Timed out/,
        cancelled: (reason) => new RegExp(`Cancelled: ${reason}`),
        approvedWithChanges: /Answered in the inbox by ops: Approved with changes/,
      },
    },
    ...(p
      ? {
          inbound: {
            answer(q, choice) {
              const text = 'confirm' in choice ? (choice.confirm ? 'Yes' : 'No') : String(choice.select + 1);
              return p.post({
                from: PERSON,
                to: INBOUND_ADDRESS,
                subject: `Re: ${subjectOf(q.delivered)}`,
                text,
              });
            },
            by: PERSON,
            signed: p.signed,
            forged: fc
              .record({
                subject: fc.oneof(fc.constant('Re: [Q-ABCDEF] x'), fc.string({ maxLength: 40 })),
                text: fc.oneof(fc.constantFrom('yes', 'no', '1'), fc.string({ maxLength: 40 })),
                from: fc.oneof(fc.constant(PERSON), fc.string({ maxLength: 20 })),
                mangle: fc.constantFrom('wrong-secret', 'no-auth', 'garbage'),
                garbage: fc.uint8Array({ maxLength: 200 }),
              })
              .map(({ subject, text, from, mangle, garbage }) => {
                const forged = p.forge({ from, to: INBOUND_ADDRESS, subject, text });
                if (mangle === 'wrong-secret') return forged;
                const headers = Object.fromEntries(
                  Object.entries(forged.headers).filter(([k]) => k === 'content-type'),
                );
                return mangle === 'no-auth'
                  ? { body: forged.body, headers }
                  : { body: Buffer.from(garbage), headers };
              }),
            maxBytes: EMAIL_INBOUND_MAX_BYTES[p.name],
          },
        }
      : {}),
  };
}
