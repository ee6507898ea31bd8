// Web Push to people's devices (API.md §19). A person's browser subscriptions are kept in the
// store's people table (at most MAX_SUBSCRIPTIONS each), with who subscribed (id, roles,
// restriction) so a push goes only to people who may see the question. The server never posts
// to an address a user picks: an endpoint must be https:// on a host of INTERACTIONS_PUSH_HOSTS
// (a `*.` entry covers subdomains), or http:// on a loopback host that list names (tests).
//
// A new question's pushes go through the outbox: its `push` item is enqueued in the same store
// step as the question (when anyone has subscribed), leased by one instance's worker, which
// calls `notify` (one notification per device, and a crash before sending leaves the item for
// another instance). Each send is bounded in time by the sender port; a 404 or 410 from the
// push service means the subscription is gone: it is deleted. `notify` is also the hook for
// reminders (REMIND, API.md §18).
import { createHash } from 'node:crypto';
import { canSee } from '../domain/access.ts';
import { DomainError } from '../domain/errors.ts';
import type { Principal, Role } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import { isPlainObject } from '../domain/values.ts';
import type { PeopleStore } from '../store/people.ts';
import type { Logger } from './logger.ts';
import { MAX_ENDPOINT_CHARS, type PushSubscriptionInput, parseSubscription } from './push-subscription.ts';

export const MAX_SUBSCRIPTIONS = 10;
/** Most people with subscriptions: the index every new question is checked against. */
export const MAX_SUBSCRIBERS = 10_000;
/** A subscription is forgotten this long after it was last renewed (the page renews it at each start). */
export const SUBSCRIPTION_KEEP_MS = 90 * 24 * 3600 * 1000;

/** Sends one encrypted push (RFC 8291, VAPID); resolves with the push service's status. */
export type PushSender = (
  subscription: PushSubscriptionInput,
  payload: string,
) => Promise<{ status: number }>;

export type PushReason = 'asked' | 'remind';

export interface Push {
  /** The VAPID public key browsers subscribe with (base64url). */
  readonly publicKey: string;
  subscribe(p: Principal, body: unknown): Promise<void>;
  /** Removes one of the caller's subscriptions by endpoint; true when it was there. */
  unsubscribe(p: Principal, body: unknown): Promise<boolean>;
  /** Pushes `question` to every subscribed person who may see it; resolves with how many were sent. */
  notify(question: QuestionRecord, reason: PushReason): Promise<number>;
  /** A test notification to the caller's own devices; resolves with how many took it. */
  test(p: Principal): Promise<number>;
  /**
   * Whether anyone has subscribed (read from the store at most every SUBSCRIBERS_CHECK_MS):
   * a new question gets a `push` outbox item only then, so a server nobody subscribed to
   * does no outbox work per ask.
   */
  anySubscribers(): Promise<boolean>;
}

/** How stale this process's "anyone subscribed?" may be (a device subscribed on another instance). */
export const SUBSCRIBERS_CHECK_MS = 5000;
/** The outbox target of a new question's pushes (API.md §19). */
export const PUSH_TARGET = 'push';

interface Stored {
  subscription: PushSubscriptionInput;
  principal: { id: string; roles: Role[]; restricted: boolean };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
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
  send: PushSender;
  publicKey: string;
  hosts: readonly string[];
  logger: Logger;
  clock?: () => number;
}

export function createPush(o: PushOptions): Push {
  const clock = o.clock ?? Date.now;
  const owner = (principalId: string): string => `push:${sha256(principalId)}`;
  const INDEX = 'push-index';

  async function subscriptionsOf(principalId: string): Promise<[string, Stored][]> {
    const all = await o.people.mapAll(owner(principalId), clock());
    const out: [string, Stored][] = [];
    for (const [field, text] of Object.entries(all)) {
      try {
        out.push([field, JSON.parse(text) as Stored]);
      } catch {
        await o.people.mapDelete(owner(principalId), field);
      }
    }
    return out;
  }

  async function sendOne(principalId: string, field: string, s: Stored, payload: string): Promise<boolean> {
    try {
      const { status } = await o.send(s.subscription, payload);
      if (status === 404 || status === 410) {
        // The browser dropped the subscription: so do we.
        await o.people.mapDelete(owner(principalId), field);
        return false;
      }
      return status >= 200 && status < 300;
    } catch (err) {
      // The push service is down or slow: this notification is lost, the subscription kept.
      o.logger.warn(
        { err: (err as Error).message, principal: principalId },
        'push: a notification could not be sent',
      );
      return false;
    }
  }

  let subscribers: { any: Promise<boolean>; until: number } = { any: Promise.resolve(false), until: 0 };

  return {
    publicKey: o.publicKey,
    anySubscribers() {
      const now = clock();
      if (now >= subscribers.until) {
        const any = o.people.mapAll(INDEX, now).then(
          (m) => Object.keys(m).length > 0,
          // Unknown: try the push; its handler finds out.
          () => true,
        );
        subscribers = { any, until: now + SUBSCRIBERS_CHECK_MS };
      }
      return subscribers.any;
    },
    async subscribe(p, body) {
      const subscription = parseSubscription(body, o.hosts);
      const until = clock() + SUBSCRIPTION_KEEP_MS;
      const stored: Stored = {
        subscription,
        principal: { id: p.id, roles: [...p.roles], restricted: p.restricted },
      };
      const set = await o.people.mapSet(
        owner(p.id),
        sha256(subscription.endpoint),
        JSON.stringify(stored),
        MAX_SUBSCRIPTIONS,
        until,
      );
      if (set === 'full') {
        throw new DomainError(
          'LIMIT_EXCEEDED',
          `at most ${MAX_SUBSCRIPTIONS} devices per person receive pushes; remove one first`,
        );
      }
      if ((await o.people.mapSet(INDEX, sha256(p.id), p.id, MAX_SUBSCRIBERS, until)) === 'full') {
        await o.people.mapDelete(owner(p.id), sha256(subscription.endpoint));
        throw new DomainError(
          'LIMIT_EXCEEDED',
          `at most ${MAX_SUBSCRIBERS} people receive pushes on this server`,
        );
      }
    },
    async unsubscribe(p, body) {
      const endpoint = isPlainObject(body) ? body.endpoint : undefined;
      if (typeof endpoint !== 'string' || endpoint.length === 0 || endpoint.length > MAX_ENDPOINT_CHARS) {
        throw bad('expected {"endpoint": "<the subscription endpoint>"}', 'endpoint');
      }
      return await o.people.mapDelete(owner(p.id), sha256(endpoint));
    },
    async test(p) {
      const payload = JSON.stringify({
        v: 1,
        title: 'Test notification',
        body: 'Notifications from the inbox reach this device.',
        actions: [],
      });
      const results = await Promise.all(
        (await subscriptionsOf(p.id)).map(([field, s]) => sendOne(p.id, field, s, payload)),
      );
      return results.filter(Boolean).length;
    },
    async notify(question, reason) {
      const people = Object.values(await o.people.mapAll(INDEX, clock()));
      const payload = pushPayload(question, reason);
      let sent = 0;
      for (const principalId of people) {
        const subscriptions = await subscriptionsOf(principalId);
        if (subscriptions.length === 0) {
          await o.people.mapDelete(INDEX, sha256(principalId));
          continue;
        }
        const results = await Promise.all(
          subscriptions
            .filter(([, s]) => canSee(s.principal, question))
            .map(([field, s]) => sendOne(principalId, field, s, payload)),
        );
        sent += results.filter(Boolean).length;
      }
      return sent;
    },
  };
}
