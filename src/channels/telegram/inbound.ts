// Telegram webhook updates mapped to what they mean. Only called after the secret token matched;
// every shape is checked, nothing is trusted beyond what Telegram itself fills in.
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { parseCallbackData } from './format.ts';

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** setWebhook's rule for secret_token; a secret outside it could never be registered. */
export const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

const id = z.number().int().safe();
const chat = z.object({ id });
// The names are optional and only shown (API.md §19): bounded, never trusted for anything else.
const user = z.object({
  id,
  first_name: z.string().max(256).optional(),
  last_name: z.string().max(256).optional(),
  username: z.string().max(64).optional(),
});

/** A Telegram user's display name: first and last name, else @username; undefined when none. */
function displayName(u: z.infer<typeof user>): string | undefined {
  const full = [u.first_name, u.last_name].filter((p) => p && p.trim() !== '').join(' ');
  return full || (u.username ? `@${u.username}` : undefined);
}

const update = z.object({
  update_id: id,
  callback_query: z
    .object({
      id: z.string().min(1).max(128),
      from: user,
      message: z.object({ message_id: id, chat }).optional(),
      data: z.string().max(256).optional(),
    })
    .optional(),
  message: z
    .object({
      message_id: id,
      chat,
      from: user.optional(),
      text: z.string().max(8192).optional(),
      reply_to_message: z.object({ message_id: id }).optional(),
    })
    .optional(),
});

/** The delivery reference of a message: chat id and message id, both filled in by Telegram. */
export function messageRef(chatId: number | string, messageId: number | string): string {
  return `${chatId}:${messageId}`;
}

/** Constant-time comparison of the header with the configured secret (hashed, so lengths do not leak). */
export function secretMatches(secret: string, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

export type TelegramEvent =
  | { kind: 'button'; callbackId: string; ref: string; by: string; byName?: string; index: number }
  /** A button we cannot map (no message, data not ours): acknowledged, nothing else. */
  | { kind: 'stale-button'; callbackId: string }
  /** A reply to a message; `text` is null for anything but text (a photo, a document with a caption). */
  | {
      kind: 'reply';
      ref: string;
      by: string;
      byName?: string;
      text: string | null;
      chatId: number;
      messageId: number;
    }
  | { kind: 'ignore' };

const named = (byName: string | undefined): { byName?: string } => (byName ? { byName } : {});

/** What a verified body means; null when it is not a Telegram update (a 400). */
export function interpretUpdate(rawBody: Buffer): TelegramEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  const parsed = update.safeParse(json);
  if (!parsed.success) return null;
  const { callback_query: cq, message } = parsed.data;
  if (cq) {
    const index = cq.data === undefined ? null : parseCallbackData(cq.data);
    if (!cq.message || index === null) return { kind: 'stale-button', callbackId: cq.id };
    return {
      kind: 'button',
      callbackId: cq.id,
      ref: messageRef(cq.message.chat.id, cq.message.message_id),
      by: String(cq.from.id),
      ...named(displayName(cq.from)),
      index,
    };
  }
  if (message?.reply_to_message && message.from) {
    return {
      kind: 'reply',
      ref: messageRef(message.chat.id, message.reply_to_message.message_id),
      by: String(message.from.id),
      ...named(displayName(message.from)),
      // A caption is not an answer: only a text message is taken as one.
      text: message.text ?? null,
      chatId: message.chat.id,
      messageId: message.message_id,
    };
  }
  return { kind: 'ignore' };
}
