// The `webhook` channel (API.md §9): a Standard Webhooks-signed POST of `question.asked` to the
// configured URL (and `question.reminded` for an escalation's REMIND, §18); the receiver answers through the callback URL (§7), so there is no inbound door.
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { isoTime } from '../domain/question-view.ts';
import { endpointUrl, envName } from './config-schema.ts';
import { requestFailure } from './failure-cause.ts';
import { discardBody } from './response-body.ts';
import type { ChannelContext, ChannelPlugin, ChannelQuestion, DeliveryRecord } from './types.ts';

/** How long one POST may take before delivery counts as failed. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

const config = z.strictObject({ url: endpointUrl, secretEnv: envName });
type WebhookConfig = z.output<typeof config>;

function askedView(q: ChannelQuestion) {
  return {
    id: q.id,
    text: q.text,
    format: q.format,
    options: q.options,
    schema: q.schema,
    link: q.link,
    recipient: q.recipient,
    sensitive: q.sensitive,
    createdAt: isoTime(q.createdAt),
    timeoutAt: isoTime(q.timeoutAt),
  };
}

function resolvedView(q: ChannelQuestion) {
  return {
    id: q.id,
    status: q.status,
    // A sensitive answer never leaves the server.
    answer: q.sensitive ? null : (q.answer ?? null),
    answeredBy: q.answeredBy,
    cancelReason: q.cancelReason,
  };
}

function createWebhookChannel(cfg: WebhookConfig, ctx: ChannelContext) {
  function signer(): Webhook {
    const secret = ctx.secret(cfg.secretEnv);
    if (!secret) throw new Error(`the webhook secret (${cfg.secretEnv}) is not set`);
    try {
      return new Webhook(secret);
    } catch {
      throw new Error(`the webhook secret (${cfg.secretEnv}) is not a Standard Webhooks secret`);
    }
  }

  // The message id is stable per question and event, so a receiver can drop a retried delivery.
  async function post(msgId: string, payload: object): Promise<void> {
    const body = JSON.stringify(payload);
    const now = new Date();
    const signature = signer().sign(msgId, now, body);
    let res: Response;
    try {
      res = await ctx.fetch(cfg.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': msgId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
    } catch (err) {
      // The cause only: the receiver's URL may carry a token of its own.
      throw new Error(`the webhook receiver could not be reached: ${requestFailure(err)}`);
    }
    // Its content is not ours to log: a few KiB are read (so a small answer releases the
    // connection) and the rest is cancelled, however much the receiver sends.
    await discardBody(res);
    if (res.status < 200 || res.status > 299) throw new Error(`the webhook receiver answered ${res.status}`);
  }

  return {
    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
      const msgId = `msg_${question.id}_asked`;
      await post(msgId, { type: 'question.asked', question: askedView(question), callbackUrl });
      return { messageId: msgId };
    },
    // An escalation REMIND (API.md §18): the same view as `question.asked` and a fresh callback
    // URL, signed like it. Each reminder is a new message (its id carries when it was sent).
    async remind(question: ChannelQuestion, _delivery: DeliveryRecord, callbackUrl: string): Promise<void> {
      await post(`msg_${question.id}_reminded_${Date.now()}`, {
        type: 'question.reminded',
        question: askedView(question),
        callbackUrl,
      });
    },
    async onResolved(question: ChannelQuestion): Promise<void> {
      await post(`msg_${question.id}_resolved`, {
        type: 'question.resolved',
        question: resolvedView(question),
      });
    },
  };
}

export const webhookPlugin: ChannelPlugin<typeof config> = {
  name: 'webhook',
  config,
  create: createWebhookChannel,
};
