// A verified, parsed Slack payload as an event for the engine: which question, the answer it
// gives or the modal it opens, and how the person who clicked is told the outcome.
import type {
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  InboundEvent,
  LookupOutcome,
} from '../types.ts';
import { slackModal } from './blocks.ts';
import { cut } from './escape.ts';
import type { ParsedPayload, SlackEvent } from './inbound.ts';

export const OK: ChannelResponse = { status: 200 };
/** Where a form Slack cannot show is answered instead: the FORM message links the answer page. */
const ON_THE_PAGE = 'Answer it on the answer page: "Open in browser" on the message.';

/** How the plugin talks back to the clicker. Both best effort: a failure is logged, never thrown. */
export interface Notifier {
  /** An ephemeral message through the click's response_url (none for a modal submission). */
  tell(responseUrl: string | undefined, text: string): Promise<void>;
  /** Opens a modal; resolves with Slack's error code when Slack refuses it (or the call fails), else null. */
  openModal(triggerId: string, view: Record<string, unknown>): Promise<string | null>;
}

function closedText(q: ChannelQuestion): string {
  if (q.status === 'TIMED_OUT') return 'This question timed out.';
  if (q.status === 'CANCELLED') return 'This question was cancelled.';
  return 'This question was already answered.';
}

/** Why a click was refused, in a sentence the person can read (null: nothing to say). */
function problem(outcome: ClaimOutcome | LookupOutcome): string | null {
  switch (outcome.kind) {
    case 'recorded':
    case 'duplicate':
    case 'pending':
      return null;
    case 'invalid':
      return `That answer was not accepted: ${outcome.message}`;
    case 'closed':
      return closedText(outcome.question);
    default:
      return 'This question is no longer available.';
  }
}

type Interaction = Exclude<ParsedPayload, null | { type: 'other' }>;

function showForm(
  event: Extract<SlackEvent, { kind: 'open-form' }>,
  responseUrl: string | undefined,
  notify: Notifier,
): InboundEvent {
  return {
    kind: 'show',
    question: { id: event.questionId },
    respond: async (outcome) => {
      // Checked against Slack's limits again: a modal Slack would refuse is never sent.
      const modal = outcome.kind === 'pending' ? slackModal(outcome.question) : null;
      if (outcome.kind !== 'pending' || !modal) {
        await notify.tell(
          responseUrl,
          problem(outcome) ?? `This form cannot be shown in Slack. ${ON_THE_PAGE}`,
        );
        return OK;
      }
      const refused = await notify.openModal(event.triggerId, modal);
      if (refused !== null) {
        await notify.tell(responseUrl, `Slack could not open the form (${refused}). ${ON_THE_PAGE}`);
      }
      return OK;
    },
  };
}

function answer(
  parsed: Interaction,
  event: Extract<SlackEvent, { kind: 'answer' }>,
  responseUrl: string | undefined,
  notify: Notifier,
): InboundEvent {
  const firstField =
    parsed.type === 'view_submission' ? Object.keys(parsed.payload.view.state.values)[0] : undefined;
  return {
    kind: 'answer',
    question: { id: event.questionId },
    by: event.by,
    ...(event.byName ? { byName: event.byName } : {}),
    answer: event.answer,
    ...(event.answerFor ? { answerFor: event.answerFor } : {}),
    respond: async (outcome) => {
      const message = problem(outcome);
      if (message === null) return OK;
      if (parsed.type === 'view_submission') {
        // Shown inside the modal, under its first field; the modal stays open.
        return firstField
          ? { status: 200, body: { response_action: 'errors', errors: { [firstField]: cut(message, 150) } } }
          : OK;
      }
      await notify.tell(responseUrl, message);
      return OK;
    },
  };
}

export function toInboundEvent(parsed: Interaction, notify: Notifier): InboundEvent {
  const { event } = parsed;
  if (event.kind === 'ignore') return { kind: 'ignore', response: OK };
  const responseUrl = parsed.type === 'block_actions' ? parsed.payload.response_url : undefined;
  if (event.kind === 'open-form') return showForm(event, responseUrl, notify);
  return answer(parsed, event, responseUrl, notify);
}
