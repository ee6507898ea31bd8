// The question's message in Slack: posted with its buttons, and edited once the question is
// closed so the buttons give way to a line saying how it ended.
import type { WebClient } from '@slack/web-api';
import { answerLine, inboxOutcome } from '../answer-line.ts';
import type { ChannelQuestion, DeliveryRecord } from '../types.ts';
import { messageProblem } from './block-kit.ts';
import { questionBlocks, resolvedBlocks, SECTION_MAX_CHARS } from './blocks.ts';
import { cut, escapedCut, escapeMrkdwn } from './escape.ts';
import { failure } from './web-api.ts';

/**
 * The blocks as Slack's form field takes them (`blocks=<JSON>`), serialized once here: exactly
 * what WebClient sends for the array. Handed the array, WebClient would also copy all of it for a
 * debug line the quiet logger drops (its `redact`) and serialize it itself: about a sixth of the
 * CPU of each message edit.
 */
function blocksField(blocks: unknown[]): never {
  return JSON.stringify(blocks) as never;
}

/** Posts the question; the delivery record names the message (channel + ts) for the later edit. */
export async function postQuestion(
  client: WebClient,
  recipient: string,
  question: ChannelQuestion,
  callbackUrl: string,
): Promise<DeliveryRecord> {
  const blocks = questionBlocks(question, callbackUrl);
  // Slack would refuse the whole message: say why here rather than send it.
  const problem = messageProblem(blocks);
  if (problem !== null) throw new Error(`slack message over Block Kit limits, not sent: ${problem}`);
  let res: { channel?: string; ts?: string };
  try {
    res = await client.chat.postMessage({
      channel: recipient,
      text: escapeMrkdwn(cut(question.text, SECTION_MAX_CHARS)),
      blocks: blocksField(blocks),
      unfurl_links: false,
      unfurl_media: false,
      link_names: false,
      parse: 'none',
    });
  } catch (err) {
    throw failure('chat.postMessage', err);
  }
  if (!res.channel || !res.ts) throw new Error('slack chat.postMessage returned no message reference');
  return { recipient, channel: res.channel, ts: res.ts };
}

/** An escalation REMIND (API.md §18): a reply in the question's thread, the buttons staying above. */
export async function postReminder(
  client: WebClient,
  message: { channel: string; ts: string },
  question: ChannelQuestion,
): Promise<void> {
  try {
    await client.chat.postMessage({
      channel: message.channel,
      thread_ts: message.ts,
      text: escapeMrkdwn(
        cut(`Reminder: still waiting for an answer to "${question.text}"`, SECTION_MAX_CHARS),
      ),
      unfurl_links: false,
      unfurl_media: false,
      link_names: false,
      parse: 'none',
    });
  } catch (err) {
    throw failure('chat.postMessage', err);
  }
}

/** Replaces the message's buttons with the line from `resolvedLine`. */
export async function showResolved(
  client: WebClient,
  message: { channel: string; ts: string },
  question: ChannelQuestion,
  line: string,
): Promise<void> {
  let blocks = resolvedBlocks(question, line);
  // An edit Slack refuses would leave live buttons: the line alone replaces them then.
  if (messageProblem(blocks) !== null) blocks = blocks.slice(-1);
  try {
    await client.chat.update({
      ...message,
      text: line,
      blocks: blocksField(blocks),
      link_names: false,
      parse: 'none',
    });
  } catch (err) {
    throw failure('chat.update', err);
  }
}

/** The line that replaces the buttons once the question is closed. */
export function resolvedLine(q: ChannelQuestion, channelName: string): string {
  if (q.status === 'TIMED_OUT') return 'Timed out';
  if (q.status === 'CANCELLED') {
    // A reason of 1,000 `&` escapes to 5,000 characters: cut after escaping, so the line stays a
    // valid text object (3,000) and the edit that removes the buttons is not refused.
    const prefix = 'Cancelled: ';
    return q.cancelReason
      ? `${prefix}${escapedCut(q.cancelReason, SECTION_MAX_CHARS - prefix.length)}`
      : 'Cancelled';
  }
  if (q.sensitive) return 'Answered';
  const by = q.answeredBy ?? '';
  const prefix = `${channelName}:`;
  if (by.startsWith(prefix)) {
    const userId = by.slice(prefix.length);
    // A user id from Slack itself; anything else is shown as plain text.
    const who = /^[UW][A-Z0-9]{2,30}$/.test(userId)
      ? `<@${userId}>`
      : escapeMrkdwn(q.answeredByName || userId);
    return `Answered by ${who}: ${escapeMrkdwn(answerLine(q))}`;
  }
  if (by === 'callback') return `Answered on the answer page: ${escapeMrkdwn(answerLine(q))}`;
  return `Answered in the inbox by ${escapeMrkdwn(q.answeredByName || by || 'someone')}${escapeMrkdwn(inboxOutcome(q))}`;
}
