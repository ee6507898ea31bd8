// The `escalate:<index>` follow-up (API.md §18): one fired step of a question's escalation
// ladder, performed by the outbox worker. The store's `escalateDue` moved the step into the
// outbox in one atomic step shared by every instance, so it is leased to one worker; here it
// is performed once and its outcome recorded once (recordEscalation, which announces UPDATED).
//
//   REMIND   every place the question went is reminded: the plugin's `remind` (a threaded
//            reply, a reply to the message, a short SMS, a signed webhook event), or, for a
//            plugin without it, a new delivery whose text says it is a reminder. Subscribed
//            inbox users are pushed through `push` (Web Push, §19) when one is wired.
//   REROUTE  the question is delivered to the step's channel and recipient as well; its
//            delivery record is kept for that place, whose inbound door then answers the question too.
//
// A step fires at most once: a question no longer PENDING is skipped, a step already recorded
// (a worker that died after recording, before its ack) is not performed again. A failure is
// recorded as the outcome, never retried, and never stops the next step.
import type { DeliveryRecord } from '../../channels/types.ts';
import { DELIVERED, type EscalationStep, outcomeOf } from '../../domain/escalation.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { QuestionStore } from '../../store/types.ts';
import { createShortLinks } from '../answers/short-links.ts';
import { deliveryCause } from '../asking.ts';
import { atPlace, channelQuestionOf } from '../deliveries/question.ts';
import { createRedelivery } from '../deliveries/redeliver.ts';
import type { Logger } from '../logger.ts';
import type { Directory } from '../people/directory.ts';
import { routedToAt } from '../people/routing.ts';
import type { ChannelPort, EngineObserver } from '../ports.ts';
import { followUpChannels } from './follow-ups.ts';
import type { FollowUpHandler } from './worker.ts';

/**
 * Where a REMIND also reaches the people who watch the inbox (Web Push, API.md §19). The
 * composition root (app/outbox-setup.ts) wires it to engine/people/push.ts; absent, nothing is pushed.
 */
export interface ReminderPush {
  /** Push "still waiting" for this question to its subscribed inbox users; throws on failure. */
  remind(question: QuestionRecord): Promise<void>;
}

export interface EscalationStepsDeps {
  store: QuestionStore;
  channels: ChannelPort;
  logger: Logger;
  clock?: () => number;
  observer?: EngineObserver;
  /** The public base URL callback URLs are built on; null: no new callback URL can be handed out. */
  publicBaseUrl: string | null;
  push?: ReminderPush;
  /** Groups and rotations: an `oncall:<group>` question is routed again at each step (API.md §22). */
  directory?: Directory;
}

/** The text of a new delivery standing in for a reminder (plugins without `remind`). */
export function reminderText(text: string): string {
  return `Reminder, still waiting for your answer: ${text}`;
}

export function createEscalationSteps(deps: EscalationStepsDeps): FollowUpHandler {
  const clock = deps.clock ?? Date.now;
  const { store, channels } = deps;
  const again = createRedelivery({ ...deps, clock });
  // A plugin's own reminder is handed the question with its links shortened, as a delivery is.
  const shortLinks = createShortLinks(deps);

  /** A fresh callback URL for the question (its own ticket, living as long as the question). */
  async function callbackUrl(q: QuestionRecord): Promise<string> {
    const url = await again.callbackUrl(q);
    if (url === null) throw new Error('the question is no longer pending');
    return url;
  }

  /** One new delivery to `place`, its delivery record kept for that place. */
  async function deliverTo(q: QuestionRecord, place: string, text: string): Promise<void> {
    if ((await again.deliverTo(q, place, text)) === 'closed')
      throw new Error('the question is no longer pending');
  }

  /** Every place the question reached: its own channel, then REROUTE places that delivered. */
  async function remind(q: QuestionRecord): Promise<string[]> {
    const failures: string[] = [];
    for (const place of followUpChannels(q)) {
      const recorded = await store.deliveries.get(q.id, place);
      // Never reached there (delivery failed, or a REROUTE not fired yet): nothing to remind.
      if (!recorded?.delivery) continue;
      const instance = channels.instance?.(place);
      try {
        if (instance?.remind) {
          const view = channelQuestionOf(await shortLinks.forChannel(atPlace(q, place)));
          await instance.remind(view, recorded.delivery as DeliveryRecord, await callbackUrl(q));
        } else {
          await deliverTo(q, place, reminderText(q.text));
        }
        deps.observer?.channelDelivery(place, 'delivered');
      } catch (err) {
        deps.observer?.channelDelivery(place, 'failed');
        failures.push(`${place}: ${deliveryCause(err)}`);
      }
    }
    // §19's hook: a REMIND also pushes to subscribed inbox users (wired once Web Push exists).
    if (deps.push) {
      try {
        await deps.push.remind(q);
      } catch (err) {
        failures.push(`push: ${deliveryCause(err)}`);
      }
    }
    return failures;
  }

  async function reroute(q: QuestionRecord, step: EscalationStep): Promise<string[]> {
    const place = step.channel!;
    try {
      await deliverTo(q, place, q.text);
      deps.observer?.channelDelivery(place, 'delivered');
      return [];
    } catch (err) {
      deps.observer?.channelDelivery(place, 'failed');
      return [`${place}: ${deliveryCause(err)}`];
    }
  }

  return async (_item, question, name) => {
    if (!question) return { kind: 'drop', reason: 'the question is gone' };
    const index = Number(name);
    const step = question.escalation?.[index];
    if (!step || !Number.isInteger(index)) return { kind: 'drop', reason: 'the question has no such step' };
    // Never after the question left PENDING; never twice.
    if (question.status !== 'PENDING') return { kind: 'done' };
    if ((await store.escalations(question.id)).has(index)) return { kind: 'done' };
    // Whoever is on call now is who this step reaches (a reminder's push goes to them).
    const firedAt = clock();
    const routedTo = deps.directory ? routedToAt(deps.directory, question.audience, firedAt) : undefined;
    const routed = routedTo === undefined ? question : { ...question, routedTo };
    const failures = step.action === 'REMIND' ? await remind(routed) : await reroute(routed, step);
    const outcome = outcomeOf(failures.length ? failures.join('; ') : null);
    const recorded = await store.recordEscalation(
      question.id,
      index,
      { firedAt, outcome, ...(routedTo !== undefined ? { routedTo } : {}) },
      { action: step.action, channel: step.channel },
    );
    if (recorded) {
      deps.observer?.escalationStep?.(
        step.action === 'REMIND' ? 'remind' : 'reroute',
        outcome === DELIVERED ? 'delivered' : 'failed',
      );
      deps.logger.info(
        { questionId: question.id, step: index, action: step.action, outcome },
        'escalation step fired',
      );
    }
    return { kind: 'done' };
  };
}
