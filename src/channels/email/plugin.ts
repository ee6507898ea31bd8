// The `email` channel (API.md §9.1): each question is one mail over SMTP (nodemailer) with a
// plain-text and an HTML part, one link per choice opening the callback page with that choice
// selected (a GET changes nothing; the person's click on the page answers) and a link to the
// answer page for the rest; the reference in the subject. Mail cannot be edited: when
// `notifyOnResolved` is set, a follow-up mail says how the question ended (never a sensitive
// answer). With `inbound`, replies by mail come back through the provider's inbound webhook at the
// channel's inbound door (inbound.ts): verified per provider, the first line of the reply answers.
import { randomBytes } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import { z } from 'zod';
import { envName } from '../config-schema.ts';
import { addressedBy, recipientOf } from '../recipients.ts';
import type { ChannelContext, ChannelPlugin, ChannelQuestion, DeliveryRecord } from '../types.ts';
import { ADDRESS_MESSAGE, isEmailAddress } from './address.ts';
import { EMAIL_INBOUND_MAX_BYTES, emailInbound } from './inbound.ts';
import { type Mail, questionMail, resolvedLine, resolvedMail } from './message.ts';
import { PROVIDERS } from './reply.ts';

/** How long connecting, the greeting and each SMTP exchange may take. */
export const SMTP_TIMEOUT_MS = 10_000;
/** Reference characters: no 0/O or 1/I, so a person can read it back. */
const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

const address = z.string().max(254).refine(isEmailAddress, { message: ADDRESS_MESSAGE });

const config = z.strictObject({
  /** The variable holding `smtp://` or `smtps://user:password@host:port`: the password is never inline. */
  smtpUrlEnv: envName,
  from: address,
  defaultRecipient: address.optional(),
  /** Send a follow-up mail when the question is answered, times out or is cancelled. */
  notifyOnResolved: z.boolean().default(false),
  /** Replies by mail through the provider's inbound webhook, posted to this channel's inbound door. */
  inbound: z
    .strictObject({
      provider: z.enum(PROVIDERS),
      /** Mailgun: the webhook signing key; SendGrid: the parse policy's public key; Postmark: `user:password`. */
      secretEnv: envName,
      /**
       * `user:password` that the provider puts in the door's URL (`https://user:password@host/…`):
       * required for Mailgun, which signs no part of the mail; optional for SendGrid; Postmark's
       * `secretEnv` already is that.
       */
      basicAuthEnv: envName.optional(),
      /** The address the provider receives for; replies go to `local+<reference>@domain` (Reply-To). */
      address: address.optional(),
    })
    .superRefine((v, c) => {
      if (v.provider === 'mailgun' && v.basicAuthEnv === undefined) {
        c.addIssue({
          code: 'custom',
          path: ['basicAuthEnv'],
          message: 'Mailgun signs no part of the mail: its route URL must carry basic credentials',
        });
      }
      if (v.provider === 'postmark' && v.basicAuthEnv !== undefined) {
        c.addIssue({
          code: 'custom',
          path: ['basicAuthEnv'],
          message: "Postmark's secretEnv already holds the basic credentials",
        });
      }
    })
    .optional(),
});
type EmailConfig = z.output<typeof config>;

/** Headers that thread a mail under the question's first mail, when its Message-ID is known. */
function threadOf(delivery: DeliveryRecord | null): Record<string, string> {
  const messageId = typeof delivery?.messageId === 'string' ? delivery.messageId : '';
  return /^<[^<>\s]{1,250}>$/.test(messageId) ? { 'In-Reply-To': messageId, References: messageId } : {};
}

/** A short reference such as `Q-7KM2XP`, shown in the subject and the mail. */
function newRef(): string {
  const bytes = randomBytes(6);
  return `Q-${[...bytes].map((b) => REF_ALPHABET[b % REF_ALPHABET.length]).join('')}`;
}

/** nodemailer's error code and the server's reply code: never the URL, which holds the password. */
function failure(what: string, err: unknown): Error {
  const e = err as { code?: unknown; responseCode?: unknown };
  const code = typeof e.code === 'string' && /^[A-Z_]{1,32}$/.test(e.code) ? ` ${e.code}` : '';
  const reply = typeof e.responseCode === 'number' ? ` (SMTP ${e.responseCode})` : '';
  return new Error(`email ${what} failed:${code || ' error'}${reply}`);
}

function createEmailChannel(cfg: EmailConfig, ctx: ChannelContext) {
  let transport: Transporter | null = null;
  function smtp(): Transporter {
    if (transport) return transport;
    const url = ctx.secret(cfg.smtpUrlEnv);
    if (!url) throw new Error(`the SMTP URL (${cfg.smtpUrlEnv}) is not set`);
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw new Error(`the SMTP URL (${cfg.smtpUrlEnv}) is not a URL`);
    }
    if (protocol !== 'smtp:' && protocol !== 'smtps:') {
      throw new Error(`the SMTP URL (${cfg.smtpUrlEnv}) must start with smtp:// or smtps://`);
    }
    transport = nodemailer.createTransport({
      url,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
      // Nothing of the conversation (which includes AUTH) goes to a log.
      logger: false,
      debug: false,
    });
    return transport;
  }

  /** Where a reply goes: the inbound address, plus-addressed with the reference, when configured. */
  function replyTo(ref: string): string | undefined {
    const at = cfg.inbound?.address?.lastIndexOf('@') ?? -1;
    if (!cfg.inbound?.address || at < 0) return undefined;
    const local = cfg.inbound.address.slice(0, at);
    const plus = `${local}+${ref}`;
    // A local part has at most 64 characters: without room for the reference, the subject names it.
    return plus.length <= 64 ? `${plus}${cfg.inbound.address.slice(at)}` : cfg.inbound.address;
  }

  async function send(
    to: string,
    mail: Mail,
    headers: Record<string, string> = {},
    reply?: string,
  ): Promise<string> {
    const client = smtp();
    try {
      const info = await client.sendMail({
        from: cfg.from,
        ...(reply ? { replyTo: reply } : {}),
        to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // Mail a program sends (RFC 3834): auto-responders must not answer it, and Exchange is
        // asked not to send its out-of-office notices and automatic replies to it.
        headers: {
          ...headers,
          'Auto-Submitted': 'auto-generated',
          'X-Auto-Response-Suppress': 'OOF, AutoReply',
        },
        // Links are ours to write: nodemailer must not rewrite or track them.
        disableUrlAccess: true,
        disableFileAccess: true,
      });
      return typeof info.messageId === 'string' ? info.messageId : '';
    } catch (err) {
      throw failure('delivery', err);
    }
  }

  return {
    ...addressedBy((r) => (isEmailAddress(r) ? null : ADDRESS_MESSAGE), cfg.defaultRecipient),

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
      const to = recipientOf(question, cfg.defaultRecipient);
      const ref = newRef();
      const messageId = await send(to, questionMail(question, callbackUrl, ref), {}, replyTo(ref));
      return { ref, recipient: to, messageId };
    },

    ...(cfg.inbound
      ? {
          // The provider's whole message, read as a stream with attachments dropped (inbound.ts).
          inboundMaxBytes: EMAIL_INBOUND_MAX_BYTES[cfg.inbound.provider],
          inboundStream: true,
          // Mailgun's door is guarded by a URL credential and a replayable signature: rate-limited.
          inboundRateLimited: cfg.inbound.provider === 'mailgun',
          inbound: emailInbound(cfg.inbound, ctx),
        }
      : {}),

    /**
     * An escalation step's REMIND (API.md §18): the question again, with the fresh links, under
     * the same reference (so a reply to either mail names it), threaded under the first mail.
     */
    async remind(question: ChannelQuestion, delivery: DeliveryRecord, callbackUrl: string): Promise<void> {
      const to = delivery.recipient;
      const ref = delivery.ref;
      if (typeof to !== 'string' || typeof ref !== 'string')
        throw new Error('the delivery record names no email message');
      const mail = questionMail(question, callbackUrl, ref);
      await send(to, { ...mail, subject: `Reminder: ${mail.subject}` }, threadOf(delivery), replyTo(ref));
    },

    async onResolved(question: ChannelQuestion, delivery: DeliveryRecord | null): Promise<void> {
      if (!cfg.notifyOnResolved) return;
      const to = delivery?.recipient;
      const ref = delivery?.ref;
      if (typeof to !== 'string' || typeof ref !== 'string') return;
      await send(to, resolvedMail(question, ref, resolvedLine(question, ctx.name)), threadOf(delivery));
    },

    async close(): Promise<void> {
      transport?.close();
      transport = null;
    },
  };
}

export const emailPlugin: ChannelPlugin<typeof config> = {
  name: 'email',
  config,
  create: createEmailChannel,
};
