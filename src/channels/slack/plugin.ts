// The `slack` channel (API.md §9): Block Kit messages through @slack/web-api (web-api.ts,
// messages.ts), interactivity at the channel's inbound door (signing secret, 300 s window;
// inbound.ts, events.ts), and the message edited after resolution.
import { z } from 'zod';
import { endpointUrl, envName } from '../config-schema.ts';
import { addressedBy, recipientOf } from '../recipients.ts';
import type {
  ChannelContext,
  ChannelPlugin,
  ChannelQuestion,
  DeliveryRecord,
  InboundEvent,
} from '../types.ts';
import { verifiedInbound } from '../verified-inbound.ts';
import { BLOCK_KIT_LIMITS, SLACK_INBOUND_MAX_BYTES } from './block-kit.ts';
import { OK, toInboundEvent } from './events.ts';
import { interpret, parsePayload } from './inbound.ts';
import { postQuestion, postReminder, resolvedLine, showResolved } from './messages.ts';
import { createNotifier } from './notifier.ts';
import { checkSlackSignature } from './signature.ts';
import { createSlackWebApi } from './web-api.ts';

export { SLACK_INBOUND_MAX_BYTES } from './block-kit.ts';
export { resolvedLine } from './messages.ts';
export { SLACK_TIMEOUT_MS } from './web-api.ts';

/** Channel (`C…`, `G…`), DM (`D…`) or user (`U…`, `W…`: sent as a DM) ids. */
const RECIPIENT = /^[CGDUW][A-Z0-9]{2,30}$/;

const config = z.strictObject({
  botTokenEnv: envName,
  signingSecretEnv: envName,
  defaultRecipient: z.string().regex(RECIPIENT, { message: 'must be a Slack channel or user id' }).optional(),
  apiUrl: endpointUrl.optional(),
});
type SlackConfig = z.output<typeof config>;

function createSlackChannel(cfg: SlackConfig, ctx: ChannelContext) {
  const web = createSlackWebApi(ctx, cfg.botTokenEnv, cfg.apiUrl);
  const notify = createNotifier(ctx, web);

  return {
    ...addressedBy(
      (recipient) =>
        RECIPIENT.test(recipient) ? null : 'must be a Slack channel id (C…, G…) or user id (U…)',
      cfg.defaultRecipient,
    ),
    inboundMaxBytes: SLACK_INBOUND_MAX_BYTES,
    // A link button's URL; a longer link arrives as the server's short redirect.
    linkMaxChars: BLOCK_KIT_LIMITS.buttonUrl,

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
      return postQuestion(web(), recipientOf(question, cfg.defaultRecipient), question, callbackUrl);
    },

    inbound: verifiedInbound(
      ctx,
      cfg.signingSecretEnv,
      (secret, req) => {
        const check = checkSlackSignature(secret, req.headers, req.rawBody, req.now);
        return check === 'ok' ? null : `slack signature ${check}`;
      },
      (req): InboundEvent => {
        const parsed = interpret(parsePayload(req.rawBody));
        if (parsed === null)
          return { kind: 'reject', status: 400, reason: 'not a Slack interactivity payload' };
        if (parsed.type === 'other') return { kind: 'ignore', response: OK };
        return toInboundEvent(parsed, notify);
      },
    ),

    async remind(question: ChannelQuestion, delivery: DeliveryRecord): Promise<void> {
      const { channel, ts } = delivery;
      if (typeof channel !== 'string' || typeof ts !== 'string') {
        throw new Error('the delivery record names no slack message');
      }
      await postReminder(web(), { channel, ts }, question);
    },

    async onResolved(question: ChannelQuestion, delivery: DeliveryRecord | null): Promise<void> {
      const channel = delivery?.channel;
      const ts = delivery?.ts;
      if (typeof channel !== 'string' || typeof ts !== 'string') return;
      const line = resolvedLine(question, ctx.name);
      await showResolved(web(), { channel, ts }, question, line);
    },
  };
}

export const slackPlugin: ChannelPlugin<typeof config> = {
  name: 'slack',
  config,
  create: createSlackChannel,
};
