// The question's message in Discord: posted with its components, and edited once the question is
// closed (from Discord or anywhere else) so the buttons give way to a line saying how it ended.
import { answerLine, inboxOutcome } from '../answer-line.ts';
import type { ChannelQuestion, DeliveryRecord } from '../types.ts';
import { cut, escapeMarkdown, questionMessage, reminderMessage, resolvedMessage } from './components.ts';
import { type DiscordRest, failure } from './rest.ts';

/** Posts the question; the delivery record names the message (channel + message id) for the later edit. */
export async function postQuestion(
  rest: DiscordRest,
  channelId: string,
  question: ChannelQuestion,
  callbackUrl: string,
): Promise<DeliveryRecord> {
  const bot = rest.bot();
  let res: { id?: unknown; channel_id?: unknown };
  try {
    res = (await bot.post(`/channels/${channelId}/messages`, {
      body: questionMessage(question, callbackUrl),
    })) as typeof res;
  } catch (err) {
    throw failure('create message', err);
  }
  if (typeof res?.id !== 'string' || typeof res.channel_id !== 'string') {
    throw new Error('discord create message returned no message reference');
  }
  return { recipient: channelId, channel: res.channel_id, message: res.id };
}

/** An escalation REMIND: a reply to the question's message in its channel (reminderMessage). */
export async function postReminder(
  rest: DiscordRest,
  message: { channel: string; message: string },
  question: ChannelQuestion,
  callbackUrl: string,
): Promise<void> {
  const bot = rest.bot();
  try {
    await bot.post(`/channels/${message.channel}/messages`, {
      body: reminderMessage(question, callbackUrl, message),
    });
  } catch (err) {
    throw failure('reply to message', err);
  }
}

/** Replaces the message's components with the line from `resolvedLine`. */
export async function showResolved(
  rest: DiscordRest,
  message: { channel: string; message: string },
  question: ChannelQuestion,
  line: string,
): Promise<void> {
  const bot = rest.bot();
  try {
    await bot.patch(`/channels/${message.channel}/messages/${message.message}`, {
      body: resolvedMessage(question, line),
    });
  } catch (err) {
    throw failure('edit message', err);
  }
}

/** The line that replaces the components once the question is closed. */
export function resolvedLine(q: ChannelQuestion, channelName: string): string {
  if (q.status === 'TIMED_OUT') return 'Timed out';
  if (q.status === 'CANCELLED') {
    return q.cancelReason ? `Cancelled: ${escapeMarkdown(cut(q.cancelReason, 500))}` : 'Cancelled';
  }
  if (q.sensitive) return 'Answered';
  const by = q.answeredBy ?? '';
  const prefix = `${channelName}:`;
  if (by.startsWith(prefix)) {
    const userId = by.slice(prefix.length);
    // A user id from Discord renders as the person's name (allowed_mentions keeps it from pinging).
    const who = /^\d{15,25}$/.test(userId) ? `<@${userId}>` : escapeMarkdown(userId);
    return `Answered by ${who}: ${escapeMarkdown(answerLine(q))}`;
  }
  if (by === 'callback') return `Answered on the answer page: ${escapeMarkdown(answerLine(q))}`;
  return `Answered in the inbox by ${escapeMarkdown(by || 'someone')}${escapeMarkdown(inboxOutcome(q))}`;
}
