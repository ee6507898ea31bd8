// One push to one device, as an outbox item (API.md §19; addressing in push-records.ts). When the
// item is due the subscription is read again and what authorised it is checked again: a session
// signed out of has already removed it; an expired session's grace or a key no longer configured
// ends it here, before anything is sent. The question must still be pending and visible to the
// subscriber. A 404 or 410 from the push service deletes the subscription; another failure is
// retried a couple of times (a late "question waiting" helps nobody) and counts against the push
// service as a target, so the worker backs a failing service off and probes it one at a time.
import { addressedPerson, canSee } from '../../domain/access.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { PeopleStore } from '../../store/people.ts';
import type { OutboxItem } from '../../store/types.ts';
import type { Logger } from '../logger.ts';
import { defaultBackoffMs, type FollowUpResult } from '../outbox/worker-options.ts';
import {
  type PushGrant,
  type PushReason,
  parseDeviceTarget,
  parseStored,
  type SubscriberPrincipal,
} from './push-records.ts';
import type { PushSubscriptionInput } from './push-subscription.ts';
import { digestPushPayload, type GateVerdict, type QuietGate } from './quiet-gate.ts';

const NOW: GateVerdict = { kind: 'now' };

/** Sends one encrypted push (RFC 8291, VAPID); resolves with the push service's status. */
export type PushSender = (
  subscription: PushSubscriptionInput,
  payload: string,
) => Promise<{ status: number }>;

/** Whether what authorised a subscription still does (the composition root answers it). */
export interface PushAuthority {
  /**
   * The principal `grant` authorises now for a subscription made by `subscriber` (its current
   * roles), or null when it no longer does: the key is not configured any more, or the session
   * ended and the person's last sign-in is past the grace.
   */
  current(
    grant: PushGrant,
    subscriber: SubscriberPrincipal,
    now: number,
  ): Promise<SubscriberPrincipal | null>;
  /** Whether `grant` is live now (the session still open): a subscription is kept only then. */
  live(grant: PushGrant, now: number): Promise<boolean>;
}

/** Attempts of one device's push (the first included) before it is given up. */
export const PUSH_ATTEMPTS = 3;

export interface PushDeliveryOptions {
  people: PeopleStore;
  send: PushSender;
  authority: PushAuthority;
  payloadOf: (q: QuestionRecord, reason: PushReason) => string;
  logger: Logger;
  clock: () => number;
  /** Quiet hours and digests (API.md §22); absent: every push goes out when due. */
  gate?: QuietGate;
  /** Who acts for a person now (API.md §22): their delegate sees and is notified of their questions. */
  delegateOf?: (personId: string) => Promise<string | null>;
}

/** Whether `id` is, now, the delegate of the person `q` is addressed to. */
export async function isDelegateOf(
  delegateOf: ((personId: string) => Promise<string | null>) | undefined,
  id: string,
  q: Pick<QuestionRecord, 'audience'> & Partial<Pick<QuestionRecord, 'routedTo'>>,
): Promise<boolean> {
  const person = addressedPerson(q);
  if (!delegateOf || person === null || person === id) return false;
  return (await delegateOf(person)) === id;
}

export function createPushDelivery(
  o: PushDeliveryOptions,
): (item: OutboxItem, question: QuestionRecord | null, name: string) => Promise<FollowUpResult> {
  const again = (item: OutboxItem, reason: string): FollowUpResult =>
    item.attempt + 1 >= PUSH_ATTEMPTS
      ? { kind: 'drop', reason: `${reason}; gave up after ${PUSH_ATTEMPTS} attempts` }
      : { kind: 'retry', at: o.clock() + defaultBackoffMs(item.attempt), reason };

  return async (item, question, name) => {
    const at = parseDeviceTarget(name);
    if (at === null) return { kind: 'drop', reason: 'not a push target' };
    if (question?.status !== 'PENDING') return { kind: 'done' };
    const text = (await o.people.mapAll(at.owner, o.clock()))[at.field];
    if (text === undefined) return { kind: 'done' };
    const stored = parseStored(text);
    const principal = stored && (await o.authority.current(stored.grant, stored.principal, o.clock()));
    if (!stored || !principal) {
      // What authorised it is gone: so is the subscription, before anything is sent.
      await o.people.mapDelete(at.owner, at.field);
      o.logger.info(
        { principal: stored?.principal.id, via: stored?.grant.kind },
        'push: a subscription ended with what authorised it',
      );
      return { kind: 'done' };
    }
    if (!canSee(principal, question) && !(await isDelegateOf(o.delegateOf, principal.id, question))) {
      return { kind: 'done' };
    }
    const verdict = o.gate ? await o.gate(principal.id, `${at.owner}/${at.field}`, question.id) : NOW;
    if (verdict.kind === 'hold')
      return { kind: 'retry', at: verdict.at, reason: 'quiet hours', targetOk: true };
    if (verdict.kind === 'carried') return { kind: 'done' };
    const payload =
      verdict.kind === 'release' && verdict.ids.length > 1
        ? digestPushPayload(verdict.ids.length)
        : o.payloadOf(question, at.reason);
    let status: number;
    try {
      ({ status } = await o.send(stored.subscription, payload));
    } catch (err) {
      // Down or slow (the sender's timeout): retried, and the push service backs off.
      return again(
        item,
        `push service: ${(err as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable'}`,
      );
    }
    if (status === 404 || status === 410) {
      // The browser dropped the subscription: so do we.
      await o.people.mapDelete(at.owner, at.field);
      return { kind: 'done' };
    }
    if (status >= 200 && status < 300) return { kind: 'done' };
    return again(item, `push service answered ${status}`);
  };
}
