// A parsed Telegram update as an event for the engine: which question (the message a button is
// on, or the message a reply answers), the answer it gives, and how the person is told the outcome.

import { cutUnits } from '../cut-text.ts';
import type { ChannelQuestion, ChannelResponse, ClaimOutcome, InboundEvent } from '../types.ts';
import { NOTICE_MAX_CHARS } from './format.ts';
import type { TelegramEvent } from './inbound.ts';

const OK: ChannelResponse = { status: 200 };

/** Why an answer was refused, in a sentence the person can read (null: it was recorded). */
export function refusal(outcome: ClaimOutcome): string | null {
  switch (outcome.kind) {
    case 'recorded':
    case 'duplicate':
      return null;
    case 'invalid':
      return cutUnits(`Not accepted: ${outcome.message}`, NOTICE_MAX_CHARS);
    case 'closed': {
      const status = outcome.question.status;
      if (status === 'TIMED_OUT') return 'This question timed out.';
      if (status === 'CANCELLED') return 'This question was cancelled.';
      return 'This question was already answered.';
    }
    default:
      return 'This question is no longer available.';
  }
}

/** Why a reply to a TEXT question was refused: it was not text, or the question is sensitive. */
function replyRefusal(outcome: ClaimOutcome, text: string | null): string | null {
  if (outcome.kind === 'invalid' && outcome.question.sensitive) return SENSITIVE_REPLY;
  if (outcome.kind === 'invalid' && text === null) return ONLY_TEXT;
  return refusal(outcome);
}

export const ONLY_TEXT = 'Only text replies are taken: reply to the question with your answer as text.';
export const SENSITIVE_REPLY =
  'Not recorded: this answer is sensitive. Use the "Answer privately" button on the question, and delete your message, which stays visible in this chat.';

/** How the plugin talks back: a notice on a pressed button, or a reply in the chat. Both best effort. */
export interface Notifier {
  acknowledge(callbackId: string, text: string): Promise<void>;
  tell(chatId: number, replyTo: number, text: string): Promise<void>;
}

function optionAnswer(index: number) {
  return (q: ChannelQuestion): unknown => {
    if (q.format === 'CONFIRM') return index <= 1 ? index === 1 : undefined;
    if (q.format === 'SELECT') return q.options?.[index];
    if (q.format === 'APPROVAL' && index <= 1) return { decision: index === 1 ? 'APPROVED' : 'REJECTED' };
    return undefined;
  };
}

export function toInboundEvent(
  event: Exclude<TelegramEvent, { kind: 'stale-button' }>,
  notify: Notifier,
): InboundEvent {
  switch (event.kind) {
    case 'ignore':
      return { kind: 'ignore', response: OK };
    case 'button':
      return {
        kind: 'answer',
        question: { ref: event.ref },
        by: event.by,
        ...(event.byName ? { byName: event.byName } : {}),
        answer: optionAnswer(event.index),
        respond: async (outcome) => {
          await notify.acknowledge(event.callbackId, refusal(outcome) ?? 'Recorded');
          return OK;
        },
      };
    default: {
      const { text } = event;
      return {
        kind: 'answer',
        question: { ref: event.ref },
        by: event.by,
        ...(event.byName ? { byName: event.byName } : {}),
        // A sensitive answer is never taken from the chat, where every member can read it.
        answer: (q) =>
          q.format === 'TEXT' && !q.sensitive && text !== null && text.trim() !== '' ? text : undefined,
        respond: async (outcome) => {
          // A reply to some other message, or to a question answered by buttons, is ordinary
          // chat: say nothing.
          const chat =
            outcome.kind === 'not-found' ||
            (outcome.kind === 'invalid' && outcome.question.format !== 'TEXT');
          const message = chat ? null : replyRefusal(outcome, text);
          if (message !== null) await notify.tell(event.chatId, event.messageId, message);
          return OK;
        },
      };
    }
  }
}
