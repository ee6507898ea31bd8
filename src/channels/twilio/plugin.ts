// The `twilio` channel (API.md §9), `mode: sms` or `whatsapp`: questions go out through the
// Messages API (rest.ts), replies come in at the channel's inbound door signed with the auth
// token, and are answered with TwiML (replies.ts).
import { z } from 'zod';
import { formParamCount } from '../../domain/form-fields.ts';
import { endpointUrl, envName } from '../config-schema.ts';
import { addressedBy, recipientOf } from '../recipients.ts';
import type {
  ChannelContext,
  ChannelPlugin,
  ChannelQuestion,
  DeliveryRecord,
  InboundEvent,
  InboundRequest,
} from '../types.ts';
import {
  LINK_MAX_CHARS,
  messageBody,
  newShortRef,
  payloadAsReply,
  QUICK_REPLY_BODY_MAX_CHARS,
  quickReplies,
  RESERVED,
  refFor,
} from './messages.ts';
import { replyEvent, xml } from './replies.ts';
import { createTwilioRest } from './rest.ts';
import { checkTwilioSignature, MAX_FORM_PARAMS, SIGNATURE_HEADER } from './signature.ts';

const E164 = /^\+[1-9]\d{6,14}$/;
/** A message's SID: `SM…` (or `MM…` for MMS) and 32 hex digits, unique per message. */
const MESSAGE_SID = /^[A-Z]{2}[0-9a-fA-F]{32}$/;
const WHATSAPP = /^whatsapp:\+[1-9]\d{6,14}$/;

const config = z
  .strictObject({
    accountSidEnv: envName,
    authTokenEnv: envName,
    from: z.string().refine((v) => E164.test(v) || WHATSAPP.test(v), {
      message: 'must be an E.164 number (+14155550100) or whatsapp:+…',
    }),
    mode: z.enum(['sms', 'whatsapp']).default('sms'),
    defaultRecipient: z
      .string()
      .regex(E164, { message: 'must be an E.164 number (+14155550100)' })
      .optional(),
    apiUrl: endpointUrl.optional(),
    /** WhatsApp quick replies are Content API templates, on their own host. */
    contentApiUrl: endpointUrl.optional(),
  })
  .refine((c) => c.mode === 'whatsapp' || !c.from.startsWith('whatsapp:'), {
    message: 'a whatsapp: sender needs mode: whatsapp',
    path: ['from'],
  });
type TwilioConfig = z.output<typeof config>;

const base = (url: string) => url.replace(/\/+$/, '');

function createTwilioChannel(cfg: TwilioConfig, ctx: ChannelContext) {
  const whatsapp = cfg.mode === 'whatsapp';
  const from = whatsapp && !cfg.from.startsWith('whatsapp:') ? `whatsapp:${cfg.from}` : cfg.from;
  /** How the provider names a recipient (and, later, the sender of a reply). */
  const address = (recipient: string) =>
    whatsapp && !recipient.startsWith('whatsapp:') ? `whatsapp:${recipient}` : recipient;
  const rest = createTwilioRest(ctx, cfg.accountSidEnv, cfg.authTokenEnv);
  const apiRoot = base(cfg.apiUrl ?? 'https://api.twilio.com');
  const contentRoot = base(cfg.contentApiUrl ?? 'https://content.twilio.com');

  /** WhatsApp quick-reply buttons: a `twilio/quick-reply` content template made for this message. */
  async function quickReplyContent(q: ChannelQuestion, short: string, callbackUrl: string) {
    const actions = quickReplies(q, short);
    if (!whatsapp || actions === null) return null;
    const body = messageBody(q, short, callbackUrl, QUICK_REPLY_BODY_MAX_CHARS, false);
    try {
      return await rest.create('Content', `${contentRoot}/v1/Content`, {
        friendly_name: `tai_${short.toLowerCase()}_${q.id.replace(/[^A-Za-z0-9_]/g, '').slice(-40)}`,
        language: 'en',
        types: { 'twilio/quick-reply': { body, actions } },
      });
    } catch (err) {
      // Buttons are a convenience: numbered text answers the same way.
      ctx.logger.warn({ channel: ctx.name, err: (err as Error).message }, 'twilio quick replies unavailable');
      return null;
    }
  }

  return {
    ...addressedBy(
      (recipient) =>
        E164.test(recipient) || (whatsapp && WHATSAPP.test(recipient))
          ? null
          : 'must be an E.164 phone number, e.g. +14155550100',
      cfg.defaultRecipient,
    ),
    linkMaxChars: LINK_MAX_CHARS,

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
      const recipient = recipientOf(question, cfg.defaultRecipient);
      const sid = rest.accountSid();
      const to = address(recipient);
      const short = newShortRef();
      const params = new URLSearchParams({ To: to, From: from });
      const contentSid = await quickReplyContent(question, short, callbackUrl);
      if (contentSid !== null) params.set('ContentSid', contentSid);
      else params.set('Body', messageBody(question, short, callbackUrl));
      const url = `${apiRoot}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
      const messageSid = await rest.create('Messages', url, params);
      return {
        ref: refFor(to, short),
        recipient: to,
        short,
        messageSid,
        ...(contentSid !== null ? { contentSid } : {}),
      };
    },

    // An escalation REMIND (API.md §18): a short SMS naming the question by its reference, so a
    // reply like "K7 yes" still finds it.
    async remind(question: ChannelQuestion, delivery: DeliveryRecord): Promise<void> {
      const { recipient: to, short } = delivery;
      if (typeof to !== 'string' || typeof short !== 'string') {
        throw new Error('the delivery record names no twilio message');
      }
      const text = question.text.length > 80 ? `${question.text.slice(0, 79)}…` : question.text;
      const params = new URLSearchParams({
        To: to,
        From: from,
        Body: `Reminder [${short}]: still waiting for your answer to "${text}". Reply ${short} <answer>.`,
      });
      const url = `${apiRoot}/2010-04-01/Accounts/${encodeURIComponent(rest.accountSid())}/Messages.json`;
      await rest.create('Messages', url, params);
    },

    async inbound(req: InboundRequest): Promise<InboundEvent> {
      const token = ctx.secret(cfg.authTokenEnv);
      if (!token) return { kind: 'reject', status: 500, reason: `${cfg.authTokenEnv} is not set` };
      if (formParamCount(req.rawBody) > MAX_FORM_PARAMS) {
        return { kind: 'reject', status: 413, reason: `more than ${MAX_FORM_PARAMS} form parameters` };
      }
      const params = new URLSearchParams(req.rawBody.toString('utf8'));
      if (!checkTwilioSignature(token, req.headers[SIGNATURE_HEADER], req.url, params)) {
        return { kind: 'reject', status: 401, reason: 'twilio signature mismatch' };
      }
      const sender = params.get('From');
      if (!sender || !(E164.test(sender) || WHATSAPP.test(sender))) {
        return { kind: 'reject', status: 400, reason: 'not a Twilio message (no From number)' };
      }
      // Twilio's signature has no timestamp: the message's SID is what tells a replay apart.
      const messageSid = params.get('MessageSid');
      if (!messageSid || !MESSAGE_SID.test(messageSid)) {
        return { kind: 'reject', status: 400, reason: 'not a Twilio message (no MessageSid)' };
      }
      const text = payloadAsReply(params.get('ButtonPayload')) ?? params.get('Body') ?? '';
      if (RESERVED.has(text.trim().toLowerCase())) return { kind: 'ignore', response: xml(null) };
      return replyEvent(sender, text, messageSid);
    },

    /**
     * `tai channels setup`: points the SMS number's incoming-message webhook at this channel's
     * inbound door. WhatsApp senders are set up in the Twilio console instead.
     */
    async setup(): Promise<string> {
      if (whatsapp) {
        throw new Error(
          `WhatsApp senders are set up in the Twilio console: set "When a message comes in" to ${ctx.inboundUrl}`,
        );
      }
      const numbers = `${apiRoot}/2010-04-01/Accounts/${encodeURIComponent(rest.accountSid())}/IncomingPhoneNumbers`;
      const list = await rest.read(
        'IncomingPhoneNumbers',
        `${numbers}.json?PhoneNumber=${encodeURIComponent(from)}`,
      );
      const found = (list.incoming_phone_numbers as { sid?: unknown }[] | undefined)?.[0]?.sid;
      if (typeof found !== 'string' || !/^PN[0-9a-fA-F]{32}$/.test(found)) {
        throw new Error(`${from} is not a phone number of this Twilio account`);
      }
      await rest.update(
        'IncomingPhoneNumbers',
        `${numbers}/${found}.json`,
        new URLSearchParams({ SmsUrl: ctx.inboundUrl, SmsMethod: 'POST' }),
      );
      return `Twilio will post messages to ${from} to ${ctx.inboundUrl}`;
    },

    /**
     * Texts cannot be edited, so nothing is sent; the quick-reply template made for the message
     * is deleted so templates do not pile up in the account (a press after this still arrives).
     */
    async onResolved(_question: ChannelQuestion, delivery: DeliveryRecord | null): Promise<void> {
      const contentSid = delivery?.contentSid;
      if (typeof contentSid !== 'string' || !/^HX[0-9a-fA-F]{32}$/.test(contentSid)) return;
      await rest.remove('Content delete', `${contentRoot}/v1/Content/${contentSid}`);
    },
  };
}

export const twilioPlugin: ChannelPlugin<typeof config> = {
  name: 'twilio',
  config,
  create: createTwilioChannel,
};
