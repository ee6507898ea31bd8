// Web Push to people's devices (API.md §19). A person's browser subscriptions are kept in the
// store's people table (at most MAX_SUBSCRIPTIONS each; how: push-records.ts), with who
// subscribed and what authorised it, so a push goes only to people who may see the question and
// only while that authority lasts: signing out of a session ends the subscriptions made in it
// (endSession); an expired session's last until the grace after the person's last sign-in, a
// key's until the key is no longer configured (checked when a push is due, push-delivery.ts).
// What a subscription must be to be stored: push-subscription.ts.
//
// Pushes go through the outbox. A new question's `push` item is enqueued in the same store step
// as the question (when anyone has subscribed); the worker that leases it calls `notify`, which
// enqueues one item per device that may see the question, each targeted at its push service's
// origin: the worker caps deliveries in flight per target, so one slow or hung push service
// delays no one else's pushes. `notify` is also the hook for reminders (REMIND, API.md §18).

import { addressedPerson, isNotified } from '../../domain/access.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { isPlainObject } from '../../domain/values.ts';
import { MAX_ADD_BATCH } from '../../store/outbox.ts';
import type { PeopleStore } from '../../store/people.ts';
import type { Outbox, OutboxItem } from '../../store/types.ts';
import type { Logger } from '../logger.ts';
import type { FollowUpResult } from '../outbox/worker-options.ts';
import { createPushDelivery, type PushAuthority, type PushSender } from './push-delivery.ts';
import {
  deviceField,
  deviceTarget,
  indexField,
  ownerKey,
  PUSH_INDEX,
  type PushGrant,
  type PushReason,
  parseStored,
  type StoredSubscription,
} from './push-records.ts';
import { MAX_ENDPOINT_CHARS, parseSubscription } from './push-subscription.ts';
import type { QuietGate } from './quiet-gate.ts';

export type { PushAuthority, PushSender } from './push-delivery.ts';
export { PUSH_TARGET, type PushGrant, type PushReason } from './push-records.ts';

export const MAX_SUBSCRIPTIONS = 10;
/** Most people with subscriptions: the index every new question is checked against. */
export const MAX_SUBSCRIBERS = 10_000;
/** A subscription is forgotten this long after it was last renewed (the page renews it at each start). */
export const SUBSCRIPTION_KEEP_MS = 90 * 24 * 3600 * 1000;
/** How stale this process's "anyone subscribed?" may be (a device subscribed on another instance). */
export const SUBSCRIBERS_CHECK_MS = 5000;
/**
 * Pushes in flight at once to one push service origin (the outbox's per-target cap, 8 for a
 * webhook): every Chrome device is on one origin, so one question to 1,000 devices is 1,000
 * pushes to one target, and at 8 in flight the last went out 2-3 s after the ask on a loaded
 * two-core machine, 1.1-1.4 s at 32 (bench/README.md, "Web Push"). A hung push service holds at
 * most this many pool slots until its first timeout, then it is probed one push at a time.
 */
export const PUSH_PER_TARGET = 32;
/** People whose subscriptions one `notify` reads at once. */
const READ_PARALLEL = 16;

export interface Push {
  /** The VAPID public key browsers subscribe with (base64url). */
  readonly publicKey: string;
  /** Stores the caller's subscription, with what authorised the request (`grant`). */
  subscribe(p: Principal, grant: PushGrant, body: unknown): Promise<void>;
  /** Removes one of the caller's subscriptions by endpoint; true when it was there. */
  unsubscribe(p: Principal, body: unknown): Promise<boolean>;
  /**
   * Signing out: ends the subscriptions made in the session `sessionRef` (its id's SHA-256) of
   * `principalId` (null when the session already expired: the person is looked up); resolves
   * with how many.
   */
  endSession(principalId: string | null, sessionRef: string): Promise<number>;
  /**
   * Queues a push of `question` to every device whose subscriber may see it (one outbox item
   * each); resolves with how many were queued.
   */
  notify(question: QuestionRecord, reason: PushReason): Promise<number>;
  /** Performs one device's item (the outbox worker's `push` handler; the fan-out item too). */
  deliver(item: OutboxItem, question: QuestionRecord | null, name: string): Promise<FollowUpResult>;
  /** A test notification to the caller's own devices, sent now; resolves with how many took it. */
  test(p: Principal): Promise<number>;
  /**
   * Whether anyone has subscribed (read from the store at most every SUBSCRIBERS_CHECK_MS):
   * a new question gets a `push` outbox item only then, so a server nobody subscribed to
   * does no outbox work per ask.
   */
  anySubscribers(): Promise<boolean>;
}

/** Who subscribed in a session, kept as long as its subscriptions, so a sign-out after it expired finds them. */
const sessionNote = (sessionRef: string): string => `push-session:${sessionRef}`;

function bad(message: string, field: string): DomainError {
  return new DomainError('BAD_USER_INPUT', message, field);
}

/** The notification's content: a sensitive question says only that a question is waiting. */
export function pushPayload(q: QuestionRecord, reason: PushReason): string {
  if (q.sensitive) return JSON.stringify({ v: 1, title: 'A question is waiting', body: '', actions: [] });
  const title = reason === 'remind' ? 'Reminder: a question is waiting' : 'A question is waiting';
  const body = [...q.text].slice(0, 300).join('');
  const approval = (q.format as string) === 'APPROVAL';
  const actions =
    q.format === 'CONFIRM'
      ? [
          { action: 'approve', title: 'Approve', answer: true },
          { action: 'reject', title: 'Reject', answer: false },
        ]
      : approval
        ? [
            { action: 'approve', title: 'Approve', answer: { decision: 'APPROVED' } },
            { action: 'reject', title: 'Reject', answer: { decision: 'REJECTED' } },
          ]
        : [];
  return JSON.stringify({
    v: 1,
    id: q.id,
    title,
    body,
    format: q.format,
    url: `/#question=${q.id}`,
    actions,
  });
}

export interface PushOptions {
  people: PeopleStore;
  /** Where each device's push is queued. */
  outbox: Pick<Outbox, 'add'>;
  /** Wakes the outbox worker once pushes were queued. */
  kick?: () => void;
  send: PushSender;
  authority: PushAuthority;
  publicKey: string;
  hosts: readonly string[];
  logger: Logger;
  clock?: () => number;
  /** Adds a subscriber's configured groups (API.md §22): a group's questions are pushed to its members. */
  withGroups?: (p: Principal) => Principal;
  /** Quiet hours and digests (API.md §22). */
  gate?: QuietGate;
  /** Who acts for a person now (API.md §22). */
  delegateOf?: (personId: string) => Promise<string | null>;
}

export function createPush(o: PushOptions): Push {
  const clock = o.clock ?? Date.now;
  const withGroups = o.withGroups ?? ((p: Principal) => p);
  // A delivery re-checks what the subscriber may see, with the groups it has now.
  const authority: PushAuthority = {
    ...o.authority,
    current: async (grant, subscriber, now) => {
      const p = await o.authority.current(grant, subscriber, now);
      return p && withGroups(p);
    },
  };

  async function subscriptionsOf(principalId: string): Promise<[string, StoredSubscription][]> {
    const owner = ownerKey(principalId);
    const out: [string, StoredSubscription][] = [];
    for (const [field, text] of Object.entries(await o.people.mapAll(owner, clock()))) {
      const stored = parseStored(text);
      if (stored) out.push([field, stored]);
      else await o.people.mapDelete(owner, field);
    }
    return out;
  }

  /** The targets of one person's devices that may see `question`; forgets a person with none. */
  async function targetsOf(
    principalId: string,
    question: QuestionRecord,
    reason: PushReason,
    delegate: string | null,
  ): Promise<string[]> {
    const subscriptions = await subscriptionsOf(principalId);
    if (subscriptions.length === 0) {
      await o.people.mapDelete(PUSH_INDEX, indexField(principalId));
      return [];
    }
    return subscriptions
      .filter(([, s]) => delegate === principalId || isNotified(withGroups(s.principal), question))
      .map(([, s]) => deviceTarget(principalId, s.subscription.endpoint, reason));
  }

  const deliverOne = createPushDelivery({
    people: o.people,
    send: o.send,
    authority,
    payloadOf: pushPayload,
    logger: o.logger,
    clock,
    ...(o.gate ? { gate: o.gate } : {}),
    ...(o.delegateOf ? { delegateOf: o.delegateOf } : {}),
  });

  let subscribers: { any: Promise<boolean>; until: number } = { any: Promise.resolve(false), until: 0 };

  const push: Push = {
    publicKey: o.publicKey,
    anySubscribers() {
      const now = clock();
      if (now >= subscribers.until) {
        const any = o.people.mapAll(PUSH_INDEX, now).then(
          (m) => Object.keys(m).length > 0,
          // Unknown: try the push; its handler finds out.
          () => true,
        );
        subscribers = { any, until: now + SUBSCRIBERS_CHECK_MS };
      }
      return subscribers.any;
    },
    async subscribe(p, grant, body) {
      const subscription = parseSubscription(body, o.hosts);
      if (!(await o.authority.live(grant, clock()))) {
        throw new DomainError('UNAUTHENTICATED', 'pushes need a signed-in person or an API key');
      }
      const until = clock() + SUBSCRIPTION_KEEP_MS;
      const stored: StoredSubscription = {
        subscription,
        principal: { id: p.id, roles: [...p.roles], restricted: p.restricted },
        grant,
      };
      const owner = ownerKey(p.id);
      const field = deviceField(subscription.endpoint);
      const set = await o.people.mapSet(owner, field, JSON.stringify(stored), MAX_SUBSCRIPTIONS, until);
      if (set === 'full') {
        throw new DomainError(
          'LIMIT_EXCEEDED',
          `at most ${MAX_SUBSCRIPTIONS} devices per person receive pushes; remove one first`,
        );
      }
      if ((await o.people.mapSet(PUSH_INDEX, indexField(p.id), p.id, MAX_SUBSCRIBERS, until)) === 'full') {
        await o.people.mapDelete(owner, field);
        throw new DomainError(
          'LIMIT_EXCEEDED',
          `at most ${MAX_SUBSCRIBERS} people receive pushes on this server`,
        );
      }
      if (grant.kind === 'session') await o.people.put(sessionNote(grant.ref), p.id, until);
      // A sign-out that ended this session's subscriptions while this one was being written
      // did not see it: the session is closed before its subscriptions are ended, so looking
      // again now finds the session gone, and this one goes too.
      if (!(await o.authority.live(grant, clock()))) {
        await o.people.mapDelete(owner, field);
        throw new DomainError('UNAUTHENTICATED', 'the session ended');
      }
    },
    async unsubscribe(p, body) {
      const endpoint = isPlainObject(body) ? body.endpoint : undefined;
      if (typeof endpoint !== 'string' || endpoint.length === 0 || endpoint.length > MAX_ENDPOINT_CHARS) {
        throw bad('expected {"endpoint": "<the subscription endpoint>"}', 'endpoint');
      }
      return await o.people.mapDelete(ownerKey(p.id), deviceField(endpoint));
    },
    async endSession(principalId, sessionRef) {
      // A session that already expired no longer names its person: the note kept at subscribe does.
      const who = principalId ?? (await o.people.get(sessionNote(sessionRef), clock()));
      if (who === null) return 0;
      let ended = 0;
      for (const [field, s] of await subscriptionsOf(who)) {
        if (s.grant.kind === 'session' && s.grant.ref === sessionRef) {
          if (await o.people.mapDelete(ownerKey(who), field)) ended++;
        }
      }
      return ended;
    },
    async test(p) {
      const payload = JSON.stringify({
        v: 1,
        title: 'Test notification',
        body: 'Notifications from the inbox reach this device.',
        actions: [],
      });
      const results = await Promise.all(
        (await subscriptionsOf(p.id)).map(async ([field, s]) => {
          try {
            const { status } = await o.send(s.subscription, payload);
            if (status === 404 || status === 410) await o.people.mapDelete(ownerKey(p.id), field);
            return status >= 200 && status < 300;
          } catch {
            return false;
          }
        }),
      );
      return results.filter(Boolean).length;
    },
    async notify(question, reason) {
      const people = Object.values(await o.people.mapAll(PUSH_INDEX, clock()));
      // The addressee's delegate, read once per question (API.md §22).
      const person = addressedPerson(question);
      const delegate = o.delegateOf && person !== null ? await o.delegateOf(person) : null;
      let queued = 0;
      for (let i = 0; i < people.length; i += READ_PARALLEL) {
        const batch = people.slice(i, i + READ_PARALLEL);
        const targets = (
          await Promise.all(batch.map((id) => targetsOf(id, question, reason, delegate)))
        ).flat();
        for (let j = 0; j < targets.length; j += MAX_ADD_BATCH) {
          queued += await o.outbox.add(question.id, targets.slice(j, j + MAX_ADD_BATCH), clock());
        }
        // The first devices' pushes start while the rest are being read.
        if (targets.length > 0) o.kick?.();
      }
      return queued;
    },
    async deliver(item, question, name) {
      // The fan-out item of a new question (target `push`): queue one item per device.
      if (name === '') {
        if (question?.status === 'PENDING') await push.notify(question, 'asked');
        return { kind: 'done' };
      }
      return deliverOne(item, question, name);
    },
  };
  return push;
}
