// The `discord` channel (API.md §9.1): messages with components through Discord's REST API
// (@discordjs/rest; rest.ts, messages.ts, components.ts), interactions at the channel's inbound
// door (Ed25519 over timestamp + raw body; signature.ts, inbound.ts, events.ts), and the message
// edited after any resolution.
import { z } from 'zod';
import { endpointUrl, envName } from '../config-schema.ts';
import type {
  ChannelContext,
  ChannelPlugin,
  ChannelQuestion,
  DeliveryRecord,
  InboundEvent,
  InboundRequest,
} from '../types.ts';
import { DISCORD_LIMITS } from './components.ts';
import { toInboundEvent } from './events.ts';
import { interpret, parseInteraction } from './inbound.ts';
import { postQuestion, postReminder, resolvedLine, showResolved } from './messages.ts';
import { createDiscordRest, DISCORD_DEFAULT_API_URL, failure, splitApiUrl } from './rest.ts';
import { checkDiscordSignature, discordPublicKey } from './signature.ts';

export { resolvedLine } from './messages.ts';

/**
 * The inbound door's cap. A click repeats the whole message: 2,000 characters of content and up to
 * four selects of 25 options of 100 characters, about 50 KiB in four-byte characters, close to the
 * callback cap; this leaves room.
 */
export const DISCORD_INBOUND_MAX_BYTES = 128 * 1024;

/** A channel (or thread) id: a snowflake. */
const RECIPIENT = /^\d{15,25}$/;

const config = z.strictObject({
  botTokenEnv: envName,
  publicKey: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, { message: 'must be the application public key (64 hex characters)' }),
  applicationId: z.string().regex(RECIPIENT, { message: 'must be the application id' }),
  defaultRecipient: z.string().regex(RECIPIENT, { message: 'must be a Discord channel id' }).optional(),
  apiUrl: endpointUrl
    .refine((url) => splitApiUrl(url) !== null, { message: 'must end with the API version, e.g. /api/v10' })
    .optional(),
});
type DiscordConfig = z.output<typeof config>;

function createDiscordChannel(cfg: DiscordConfig, ctx: ChannelContext) {
  const rest = createDiscordRest(ctx, cfg.botTokenEnv, cfg.apiUrl ?? DISCORD_DEFAULT_API_URL);
  const key = discordPublicKey(cfg.publicKey);

  return {
    ...(cfg.defaultRecipient ? { defaultRecipient: cfg.defaultRecipient } : {}),
    needsRecipient: true,
    inboundMaxBytes: DISCORD_INBOUND_MAX_BYTES,
    // A link button's URL; a longer link arrives as the server's short redirect.
    linkMaxChars: DISCORD_LIMITS.buttonUrl,
    checkRecipient(recipient: string): string | null {
      return RECIPIENT.test(recipient) ? null : 'must be a Discord channel id';
    },

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
      const recipient = question.recipient ?? cfg.defaultRecipient;
      if (!recipient) throw new Error('no recipient and no defaultRecipient');
      return postQuestion(rest, recipient, question, callbackUrl);
    },

    async inbound(req: InboundRequest): Promise<InboundEvent> {
      // Discord checks that a bad signature is refused with 401 before it accepts the endpoint.
      const check = checkDiscordSignature(key, req.headers, req.rawBody, req.now);
      if (check !== 'ok') return { kind: 'reject', status: 401, reason: `discord signature ${check}` };
      const interaction = parseInteraction(req.rawBody);
      const event = interaction === null ? null : interpret(interaction);
      if (interaction === null || event === null) {
        return { kind: 'reject', status: 400, reason: 'not a Discord interaction' };
      }
      return toInboundEvent(interaction, event, {
        rest,
        logger: ctx.logger,
        name: ctx.name,
        applicationId: cfg.applicationId,
        receivedAt: req.now,
      });
    },

    // An escalation REMIND (API.md §18): a reply to the question's message, with its components.
    async remind(question: ChannelQuestion, delivery: DeliveryRecord, callbackUrl: string): Promise<void> {
      const { channel, message } = delivery;
      if (typeof channel !== 'string' || typeof message !== 'string') {
        throw new Error('the delivery record names no discord message');
      }
      await postReminder(rest, { channel, message }, question, callbackUrl);
    },

    async onResolved(question: ChannelQuestion, delivery: DeliveryRecord | null): Promise<void> {
      const channel = delivery?.channel;
      const message = delivery?.message;
      if (typeof channel !== 'string' || typeof message !== 'string') return;
      await showResolved(rest, { channel, message }, question, resolvedLine(question, ctx.name));
    },

    /** Sets the application's Interactions Endpoint URL to this channel's inbound door. */
    async setup(): Promise<string> {
      const bot = rest.bot();
      try {
        await bot.patch('/applications/@me', { body: { interactions_endpoint_url: ctx.inboundUrl } });
      } catch (err) {
        throw failure('set the interactions endpoint URL', err);
      }
      return `Discord interactions endpoint set to ${ctx.inboundUrl}`;
    },

    async close(): Promise<void> {
      rest.close();
    },
  };
}

export const discordPlugin: ChannelPlugin<typeof config> = {
  name: 'discord',
  config,
  create: createDiscordChannel,
};
