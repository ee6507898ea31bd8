// The `telegram` channel (API.md §9): messages through grammY's Bot API client, updates at the
// channel's inbound door (secret token header), every button press acknowledged, and the message
// edited after any resolution. `setup()` registers the webhook for `tai channels setup`.
import { Api, GrammyError, HttpError } from 'grammy';
import { z } from 'zod';
import { endpointUrl, envName } from '../config-schema.ts';
import { cutUnits } from '../cut-text.ts';
import { requestFailure } from '../failure-cause.ts';
import { addressedBy, recipientOf } from '../recipients.ts';
import type {
  ChannelContext,
  ChannelPlugin,
  ChannelQuestion,
  DeliveryRecord,
  InboundEvent,
} from '../types.ts';
import { verifiedInbound } from '../verified-inbound.ts';
import { toInboundEvent } from './events.ts';
import {
  actionTail,
  escapeHtml,
  messageHtml,
  NOTICE_MAX_CHARS,
  replyMarkup,
  resolvedLine,
  SENSITIVE_TAIL,
  SENSITIVE_TAIL_VISIBLE,
} from './format.ts';
import { interpretUpdate, messageRef, SECRET_HEADER, SECRET_TOKEN, secretMatches } from './inbound.ts';

/** How long one Bot API call may take. */
export const TELEGRAM_TIMEOUT_SECONDS = 10;
/**
 * An update carries a message of up to 4,096 characters and the message it replies to (our
 * question, with its keyboard), JSON with non-ASCII escaped as `\uXXXX`: well over 64 KiB at worst.
 */
export const TELEGRAM_INBOUND_MAX_BYTES = 256 * 1024;
/** The longest URL put in a button as is (a longer link arrives as the server's short redirect). */
export const LINK_MAX_CHARS = 2048;
/** A numeric chat id (groups are negative) or a public `@channel` username. */
const RECIPIENT = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

const config = z.strictObject({
  botTokenEnv: envName,
  webhookSecretEnv: envName,
  defaultRecipient: z
    .string()
    .regex(RECIPIENT, { message: 'must be a Telegram chat id or @username' })
    .optional(),
  apiRoot: endpointUrl.optional(),
});
type TelegramConfig = z.output<typeof config>;

/** The Bot API's error code and description, or the network error (never the URL, which holds the token). */
function failure(method: string, err: unknown): Error {
  if (err instanceof GrammyError)
    return new Error(`telegram ${method} failed: ${err.error_code} ${err.description}`);
  if (err instanceof HttpError) return new Error(`telegram ${method} failed: ${requestFailure(err.error)}`);
  return new Error(`telegram ${method} failed`);
}

function createTelegramChannel(cfg: TelegramConfig, ctx: ChannelContext) {
  let client: Api | null = null;
  function api(): Api {
    const token = ctx.secret(cfg.botTokenEnv);
    if (!token) throw new Error(`the Telegram bot token (${cfg.botTokenEnv}) is not set`);
    client ??= new Api(token, {
      apiRoot: cfg.apiRoot ?? 'https://api.telegram.org',
      fetch: ctx.fetch as never,
      timeoutSeconds: TELEGRAM_TIMEOUT_SECONDS,
    });
    return client;
  }

  async function acknowledge(callbackId: string, text: string): Promise<void> {
    try {
      await api().answerCallbackQuery(callbackId, { text: cutUnits(text, NOTICE_MAX_CHARS) });
    } catch (err) {
      ctx.logger.warn(
        { channel: ctx.name, err: failure('answerCallbackQuery', err).message },
        'telegram ack failed',
      );
    }
  }

  async function tell(chatId: number, replyTo: number, text: string): Promise<void> {
    try {
      await api().sendMessage(chatId, text, {
        reply_parameters: { message_id: replyTo, allow_sending_without_reply: true },
      });
    } catch (err) {
      ctx.logger.warn(
        { channel: ctx.name, err: failure('sendMessage', err).message },
        'telegram notice failed',
      );
    }
  }

  return {
    ...addressedBy(
      (recipient) => (RECIPIENT.test(recipient) ? null : 'must be a Telegram chat id or @username'),
      cfg.defaultRecipient,
    ),
    inboundMaxBytes: TELEGRAM_INBOUND_MAX_BYTES,
    linkMaxChars: LINK_MAX_CHARS,

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
      const recipient = recipientOf(question, cfg.defaultRecipient);
      const client = api();
      let sent: { message_id: number; chat: { id: number } };
      try {
        const privately = question.format === 'TEXT' && question.sensitive;
        const action = actionTail(question);
        const html = privately
          ? messageHtml(question.text, callbackUrl, SENSITIVE_TAIL, SENSITIVE_TAIL_VISIBLE)
          : messageHtml(question.text, callbackUrl, action.html, action.visible);
        sent = await client.sendMessage(recipient, html, {
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
          reply_markup: replyMarkup(question, callbackUrl),
        });
      } catch (err) {
        throw failure('sendMessage', err);
      }
      // The chat as Telegram names it in updates (an @username becomes its numeric id).
      const chatId = String(sent.chat.id);
      return {
        ref: messageRef(chatId, sent.message_id),
        recipient: chatId,
        chatId,
        messageId: sent.message_id,
      };
    },

    inbound: verifiedInbound(
      ctx,
      cfg.webhookSecretEnv,
      (secret, req) =>
        secretMatches(secret, req.headers[SECRET_HEADER]) ? null : 'telegram secret token mismatch',
      async (req): Promise<InboundEvent> => {
        const event = interpretUpdate(req.rawBody);
        if (event === null) return { kind: 'reject', status: 400, reason: 'not a Telegram update' };
        if (event.kind === 'stale-button') {
          await acknowledge(event.callbackId, 'This button is no longer valid.');
          return { kind: 'ignore', response: { status: 200 } };
        }
        return toInboundEvent(event, { acknowledge, tell });
      },
    ),

    // An escalation REMIND (API.md §18): a reply to the question's message, which keeps its buttons.
    async remind(question: ChannelQuestion, delivery: DeliveryRecord): Promise<void> {
      const { chatId, messageId } = delivery;
      if (typeof chatId !== 'string' || typeof messageId !== 'number') {
        throw new Error('the delivery record names no telegram message');
      }
      const line = `Reminder: still waiting for an answer to "${question.text}"`;
      try {
        await api().sendMessage(chatId, escapeHtml(cutUnits(line, 1000)), {
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
          reply_parameters: { message_id: messageId, allow_sending_without_reply: true },
        });
      } catch (err) {
        throw failure('sendMessage', err);
      }
    },

    async onResolved(question: ChannelQuestion, delivery: DeliveryRecord | null): Promise<void> {
      const chatId = delivery?.chatId;
      const messageId = delivery?.messageId;
      if (typeof chatId !== 'string' || typeof messageId !== 'number') return;
      const line = cutUnits(resolvedLine(question, ctx.name), 600);
      const text = messageHtml(question.text, null, `\n\n<i>${escapeHtml(line)}</i>`, line.length + 2);
      try {
        await api().editMessageText(chatId, messageId, text, {
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
          reply_markup: { inline_keyboard: [] },
        });
      } catch (err) {
        // Already showing this text, or deleted by the person: nothing left to edit.
        if (err instanceof GrammyError && /not modified|not found|can't be edited/i.test(err.description))
          return;
        throw failure('editMessageText', err);
      }
    },

    /** `tai channels setup`: points the bot's webhook at this channel's inbound door with the secret token. */
    async setup(): Promise<string> {
      const secret = ctx.secret(cfg.webhookSecretEnv);
      if (!secret) throw new Error(`the webhook secret (${cfg.webhookSecretEnv}) is not set`);
      if (!SECRET_TOKEN.test(secret)) {
        throw new Error(
          `the webhook secret (${cfg.webhookSecretEnv}) must be 1-256 characters of A-Z, a-z, 0-9, _ and -`,
        );
      }
      try {
        await api().setWebhook(ctx.inboundUrl, {
          secret_token: secret,
          allowed_updates: ['message', 'callback_query'],
        });
      } catch (err) {
        throw failure('setWebhook', err);
      }
      return `Telegram will post updates to ${ctx.inboundUrl}`;
    },
  };
}

export const telegramPlugin: ChannelPlugin<typeof config> = {
  name: 'telegram',
  config,
  create: createTelegramChannel,
};
