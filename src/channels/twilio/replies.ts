// An inbound text (or WhatsApp button press) as an answer event: which question it names, what
// it answers, and the TwiML that confirms it or explains what to send instead.
import { answerLine } from '../answer-line.ts';
import type {
  AnswerHints,
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  DeliveryRecord,
  InboundEvent,
} from '../types.ts';
import { answerFromReply, howToAnswer, refFor, splitReply } from './messages.ts';
import { twiml } from './twiml.ts';

/** An echoed answer stays short: the confirmation is one SMS segment or little more. */
const ECHO_MAX = 120;

export function xml(message: string | null): ChannelResponse {
  return { status: 200, headers: { 'content-type': 'text/xml; charset=utf-8' }, body: twiml(message) };
}

function shortOf(delivery: DeliveryRecord | null): string | null {
  return typeof delivery?.short === 'string' ? delivery.short : null;
}

function closedText(q: ChannelQuestion, short: string): string {
  if (q.status === 'TIMED_OUT') return `${short} timed out; your reply was not recorded.`;
  if (q.status === 'CANCELLED') return `${short} was cancelled; your reply was not recorded.`;
  return `${short} was already answered; your reply was not recorded.`;
}

function recordedText(q: ChannelQuestion, short: string): string {
  if (q.format === 'APPROVAL' && q.status === 'PENDING' && !q.sensitive)
    return `Your vote on ${short} is recorded.`;
  // The person just typed a TEXT answer; FORM and EXTERNAL are not answered by text.
  const echoed = q.format === 'CONFIRM' || q.format === 'SELECT' || q.format === 'APPROVAL';
  if (q.sensitive || !echoed) return `Recorded for ${short}.`;
  return `Recorded for ${short}: ${answerLine(q, ECHO_MAX)}.`;
}

/**
 * The event for a verified reply from `sender` (as Twilio names it: `+…` or `whatsapp:+…`).
 * `messageSid` makes it count once: a repeat of the same message gets empty TwiML (no text
 * back, so a replayed request cannot even make the number send a message).
 */
export function replyEvent(sender: string, text: string, messageSid: string): InboundEvent {
  const { short, rest } = splitReply(text);
  // Why `answer` gave nothing, for `respond` to explain.
  let refusal: 'ambiguous' | 'not-understood' | null = null;
  return {
    kind: 'answer',
    question: short ? { ref: refFor(sender, short) } : { latestFor: sender },
    by: sender,
    dedupe: { id: messageSid, repeat: xml(null) },
    answer: (q: ChannelQuestion, hints?: AnswerHints) => {
      // Free text could belong to any of several open questions: ask for the reference.
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
      const ref = shortOf(outcome.delivery) ?? short ?? 'the question';
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
}
