// The `twilio` channel (API.md §9), `mode: sms` or `whatsapp`: questions go out through the
// Messages API with plain `fetch` (the `twilio` package fixes its API host, so tests could not
// reach a fake; it would also read TWILIO_* variables from the process environment); replies come
// in at the channel's inbound door, signed with the auth token, and are answered with TwiML.
import { z } from 'zod';
import { endpointUrl, envName } from '../config-schema.ts';
import type {
  AnswerHints,
  ChannelContext,
  ChannelPlugin,
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  DeliveryReceipt,
  InboundEvent,
  InboundRequest,
} from '../types.ts';
import {
  answerFromReply,
  howToAnswer,
  messageBody,
  newShortRef,
  payloadAsReply,
  QUICK_REPLY_BODY_MAX_CHARS,
  quickReplies,
  RESERVED,
  refFor,
  splitReply,
} from './messages.ts';
import { checkTwilioSignature, SIGNATURE_HEADER } from './signature.ts';
import { twiml } from './twiml.ts';

/** How long one REST call may take before delivery counts as failed. */
export const TWILIO_TIMEOUT_MS = 10_000;
const E164 = /^\+[1-9]\d{6,14}$/;
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

function xml(message: string | null): ChannelResponse {
  return { status: 200, headers: { 'content-type': 'text/xml; charset=utf-8' }, body: twiml(message) };
}

const base = (url: string) => url.replace(/\/+$/, '');

function shortOf(receipt: DeliveryReceipt | null): string | null {
  return typeof receipt?.short === 'string' ? receipt.short : null;
}

function closedText(q: ChannelQuestion, short: string): string {
  if (q.status === 'TIMED_OUT') return `${short} timed out; your reply was not recorded.`;
  if (q.status === 'CANCELLED') return `${short} was cancelled; your reply was not recorded.`;
  return `${short} was already answered; your reply was not recorded.`;
}

function recordedText(q: ChannelQuestion, short: string): string {
  if (q.sensitive || (q.format !== 'CONFIRM' && q.format !== 'SELECT')) return `Recorded for ${short}.`;
  const shown = q.format === 'CONFIRM' ? (q.answer === true ? 'Yes' : 'No') : String(q.answer);
  return `Recorded for ${short}: ${shown}.`;
}

function createTwilioChannel(cfg: TwilioConfig, ctx: ChannelContext) {
  const whatsapp = cfg.mode === 'whatsapp';
  const from = whatsapp && !cfg.from.startsWith('whatsapp:') ? `whatsapp:${cfg.from}` : cfg.from;
  /** How the provider names a recipient (and, later, the sender of a reply). */
  const address = (recipient: string) =>
    whatsapp && !recipient.startsWith('whatsapp:') ? `whatsapp:${recipient}` : recipient;

  function credentials(): { sid: string; auth: string } {
    const sid = ctx.secret(cfg.accountSidEnv);
    const token = ctx.secret(cfg.authTokenEnv);
    if (!sid) throw new Error(`the Twilio account SID (${cfg.accountSidEnv}) is not set`);
    if (!token) throw new Error(`the Twilio auth token (${cfg.authTokenEnv}) is not set`);
    return { sid, auth: `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}` };
  }

  /** A REST call; the error names the HTTP status and Twilio's error code, never a credential or number. */
  async function call(what: string, url: string, auth: string, body: URLSearchParams | object) {
    const form = body instanceof URLSearchParams;
    let res: Response;
    try {
      res = await ctx.fetch(url, {
        method: 'POST',
        headers: {
          authorization: auth,
          'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
        },
        body: form ? body.toString() : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(TWILIO_TIMEOUT_MS),
      });
    } catch (err) {
      throw new Error(`twilio ${what} failed: ${err instanceof Error ? err.name : 'network error'}`);
    }
    const json = (await res.json().catch(() => null)) as { sid?: unknown; code?: unknown } | null;
    if (res.status < 200 || res.status > 299) {
      const code = typeof json?.code === 'number' ? `, code ${json.code}` : '';
      throw new Error(`twilio ${what} failed: HTTP ${res.status}${code}`);
    }
    if (typeof json?.sid !== 'string') throw new Error(`twilio ${what} returned no sid`);
    return json.sid;
  }

  const contentRoot = base(cfg.contentApiUrl ?? 'https://content.twilio.com');

  /** WhatsApp quick-reply buttons: a `twilio/quick-reply` content template made for this message. */
  async function quickReplyContent(q: ChannelQuestion, short: string, auth: string, callbackUrl: string) {
    const actions = quickReplies(q, short);
    if (!whatsapp || actions === null) return null;
    const body = messageBody(q, short, callbackUrl, QUICK_REPLY_BODY_MAX_CHARS, false);
    try {
      return await call('Content', `${contentRoot}/v1/Content`, auth, {
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
    ...(cfg.defaultRecipient ? { defaultRecipient: cfg.defaultRecipient } : {}),
    needsRecipient: true,
    checkRecipient(recipient: string): string | null {
      return E164.test(recipient) || (whatsapp && WHATSAPP.test(recipient))
        ? null
        : 'must be an E.164 phone number, e.g. +14155550100';
    },

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryReceipt> {
      const recipient = question.recipient ?? cfg.defaultRecipient;
      if (!recipient) throw new Error('no recipient and no defaultRecipient');
      const { sid, auth } = credentials();
      const to = address(recipient);
      const short = newShortRef();
      const params = new URLSearchParams({ To: to, From: from });
      const contentSid = await quickReplyContent(question, short, auth, callbackUrl);
      if (contentSid !== null) params.set('ContentSid', contentSid);
      else params.set('Body', messageBody(question, short, callbackUrl));
      const url = `${base(cfg.apiUrl ?? 'https://api.twilio.com')}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
      const messageSid = await call('Messages', url, auth, params);
      return {
        ref: refFor(to, short),
        recipient: to,
        short,
        messageSid,
        ...(contentSid !== null ? { contentSid } : {}),
      };
    },

    async inbound(req: InboundRequest): Promise<InboundEvent> {
      const token = ctx.secret(cfg.authTokenEnv);
      if (!token) return { kind: 'reject', status: 500, reason: `${cfg.authTokenEnv} is not set` };
      const params = new URLSearchParams(req.rawBody.toString('utf8'));
      if (!checkTwilioSignature(token, req.headers[SIGNATURE_HEADER], req.url, params)) {
        return { kind: 'reject', status: 401, reason: 'twilio signature mismatch' };
      }
      const sender = params.get('From');
      if (!sender || !(E164.test(sender) || WHATSAPP.test(sender))) {
        return { kind: 'reject', status: 400, reason: 'not a Twilio message (no From number)' };
      }
      const text = payloadAsReply(params.get('ButtonPayload')) ?? params.get('Body') ?? '';
      if (RESERVED.has(text.trim().toLowerCase())) return { kind: 'ignore', response: xml(null) };
      const { short, rest } = splitReply(text);
      // Why `answer` gave nothing, for `respond` to explain.
      let refusal: 'ambiguous' | 'not-understood' | null = null;
      return {
        kind: 'answer',
        question: short ? { ref: refFor(sender, short) } : { latestFor: sender },
        by: sender,
        answer: (q: ChannelQuestion, hints?: AnswerHints) => {
          // Free text could belong to any of several open TEXT questions: ask for the reference.
          if (!short && q.format === 'TEXT' && (hints?.pendingForRecipient ?? 1) > 1) {
            refusal = 'ambiguous';
            return undefined;
          }
          const answer = answerFromReply(q, rest);
          refusal = answer === undefined ? 'not-understood' : null;
          return answer;
        },
        respond: (outcome: ClaimOutcome) => {
          if (outcome.kind === 'not-found') {
            return xml(
              short
                ? `There is no open question ${short} for this number.`
                : 'There is no open question for this number.',
            );
          }
          const ref = shortOf(outcome.receipt) ?? short ?? 'the question';
          switch (outcome.kind) {
            case 'recorded':
            case 'duplicate':
              return xml(recordedText(outcome.question, ref));
            case 'closed':
              return xml(closedText(outcome.question, ref));
            default:
              if (refusal === 'ambiguous') {
                return xml(
                  `Several questions are waiting for your answer. ${howToAnswer(outcome.question, ref)}`,
                );
              }
              if (refusal === 'not-understood')
                return xml(`Not understood. ${howToAnswer(outcome.question, ref)}`);
              return xml(`Not accepted for ${ref}: ${outcome.message}`);
          }
        },
      };
    },

    /**
     * Texts cannot be edited, so nothing is sent; the quick-reply template made for the message
     * is deleted so templates do not pile up in the account (a press after this still arrives).
     */
    async onResolved(_question: ChannelQuestion, receipt: DeliveryReceipt | null): Promise<void> {
      const contentSid = receipt?.contentSid;
      if (typeof contentSid !== 'string' || !/^HX[0-9a-fA-F]{32}$/.test(contentSid)) return;
      const { auth } = credentials();
      let res: Response;
      try {
        res = await ctx.fetch(`${contentRoot}/v1/Content/${contentSid}`, {
          method: 'DELETE',
          headers: { authorization: auth },
          redirect: 'manual',
          signal: AbortSignal.timeout(TWILIO_TIMEOUT_MS),
        });
      } catch (err) {
        throw new Error(`twilio Content delete failed: ${err instanceof Error ? err.name : 'network error'}`);
      }
      await res.arrayBuffer().catch(() => undefined);
      // 404: already gone.
      if (res.status !== 404 && (res.status < 200 || res.status > 299)) {
        throw new Error(`twilio Content delete failed: HTTP ${res.status}`);
      }
    },
  };
}

export const twilioPlugin: ChannelPlugin<typeof config> = {
  name: 'twilio',
  config,
  create: createTwilioChannel,
};
