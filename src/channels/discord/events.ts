// A verified, parsed interaction as an event for the engine, and how Discord is answered: a click
// that answers updates the message in place (UPDATE_MESSAGE), a refusal is shown to the clicker
// alone (an ephemeral reply), a TEXT or FORM button opens its modal (MODAL).
//
// Discord waits 3 s for the answer to an interaction. Claiming is normally a few milliseconds; if
// it is still running after DEFER_AFTER_MS (a slow store), the interaction is acknowledged
// through the REST callback (DEFERRED_UPDATE_MESSAGE) and the outcome then edits the original
// message or follows up through the interaction's webhook.
import type {
  ChannelLogger,
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  InboundEvent,
  JsonValue,
  LookupOutcome,
} from '../types.ts';
import { ephemeral, questionModal, resolvedMessage } from './components.ts';
import type { DiscordEvent, Interaction } from './inbound.ts';
import { resolvedLine } from './messages.ts';
import { type DiscordRest, failure } from './rest.ts';

/** After this long since the request arrived, a claim still running is acknowledged first. */
export const DEFER_AFTER_MS = 2_000;

/** Interaction response types. */
const PONG = 1;
const CHANNEL_MESSAGE = 4;
const DEFERRED_UPDATE_MESSAGE = 6;
const UPDATE_MESSAGE = 7;
const MODAL = 9;

const reply = (type: number, data?: Record<string, unknown>): ChannelResponse => ({
  status: 200,
  body: (data === undefined ? { type } : { type, data }) as JsonValue,
});

export const PONG_RESPONSE = reply(PONG);
/** Acknowledged, nothing changes: what a replayed interaction gets. */
export const ACK = reply(DEFERRED_UPDATE_MESSAGE);
export const COMMAND_REPLY = reply(
  CHANNEL_MESSAGE,
  ephemeral('This app asks questions; it has no commands to run.'),
);

interface Reply {
  type: typeof CHANNEL_MESSAGE | typeof UPDATE_MESSAGE;
  data: Record<string, unknown>;
}

function closedView(q: ChannelQuestion, name: string): Reply {
  return { type: UPDATE_MESSAGE, data: resolvedMessage(q, resolvedLine(q, name)) };
}

function refusal(text: string): Reply {
  return { type: CHANNEL_MESSAGE, data: ephemeral(text) };
}

function answerReply(outcome: ClaimOutcome, name: string): Reply {
  switch (outcome.kind) {
    case 'recorded':
    case 'duplicate':
    case 'closed':
      // The message shows the outcome (and who answered) for everyone in the channel.
      return closedView(outcome.question, name);
    case 'invalid':
      return refusal(`That answer was not accepted: ${outcome.message}`);
    default:
      return refusal('This question is no longer available.');
  }
}

function showReply(outcome: LookupOutcome, name: string): ChannelResponse {
  if (outcome.kind === 'not-found')
    return reply(CHANNEL_MESSAGE, ephemeral('This question is no longer available.'));
  if (outcome.kind === 'closed') return reply(UPDATE_MESSAGE, closedView(outcome.question, name).data);
  const modal = questionModal(outcome.question);
  if (modal === null) {
    return reply(
      CHANNEL_MESSAGE,
      ephemeral('This form cannot be shown in Discord: use "Open in browser" on the message.'),
    );
  }
  return reply(MODAL, modal);
}

/** The deferral of one interaction: armed when the claim starts, settled with its reply. */
function createDeferral(i: Interaction, deps: EventDeps) {
  const { rest, logger, name } = deps;
  let timer: NodeJS.Timeout | undefined;
  let acked: Promise<boolean> | null = null;
  const warn = (what: string, err: unknown) =>
    logger.warn({ channel: name, err: failure(what, err).message }, 'discord deferred reply failed');
  return {
    arm(): void {
      if (timer !== undefined || acked !== null) return;
      const wait = Math.min(Math.max(0, DEFER_AFTER_MS - (Date.now() - deps.receivedAt)), DEFER_AFTER_MS);
      timer = setTimeout(() => {
        timer = undefined;
        acked = rest
          .open()
          .post(`/interactions/${i.id}/${i.token}/callback`, {
            body: { type: DEFERRED_UPDATE_MESSAGE },
            auth: false,
          })
          .then(
            () => true,
            (err: unknown) => {
              warn('interaction callback', err);
              return false;
            },
          );
      }, wait);
      timer.unref?.();
    },
    async settle(r: Reply): Promise<ChannelResponse> {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (acked === null || !(await acked)) return reply(r.type, r.data);
      // Acknowledged already: Discord takes the outcome through the interaction's webhook.
      const hook = `/webhooks/${deps.applicationId}/${i.token}` as const;
      try {
        if (r.type === UPDATE_MESSAGE)
          await rest.open().patch(`${hook}/messages/@original`, { body: r.data, auth: false });
        else await rest.open().post(hook, { body: r.data, auth: false });
      } catch (err) {
        warn('interaction webhook', err);
      }
      return { status: 202 };
    },
  };
}

export interface EventDeps {
  rest: DiscordRest;
  logger: ChannelLogger;
  name: string;
  applicationId: string;
  receivedAt: number;
}

export function toInboundEvent(i: Interaction, event: DiscordEvent, deps: EventDeps): InboundEvent {
  switch (event.kind) {
    case 'ping':
      return { kind: 'ignore', response: PONG_RESPONSE };
    case 'command':
      return { kind: 'ignore', response: COMMAND_REPLY };
    case 'ignore':
      return { kind: 'ignore', response: ACK };
    case 'open-modal':
      return {
        kind: 'show',
        question: { id: event.questionId },
        respond: (outcome) => showReply(outcome, deps.name),
      };
    default: {
      const deferral = createDeferral(i, deps);
      return {
        kind: 'answer',
        question: { id: event.questionId },
        by: event.by,
        answer: (q) => {
          // The claim follows: from here it may run past Discord's 3 s.
          deferral.arm();
          return event.answer(q);
        },
        respond: (outcome) => deferral.settle(answerReply(outcome, deps.name)),
        // Discord never sends an interaction twice: a repeat is a captured request sent again.
        dedupe: { id: `interaction:${i.id}`, repeat: ACK },
      };
    }
  }
}
