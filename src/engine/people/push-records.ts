// How push subscriptions are kept and addressed (API.md §19). Each person's subscriptions are
// one small map of the people table, `push:<sha256(principal id)>`, a field per device
// (sha256(endpoint)) holding the subscription, who subscribed and what authorised it (the
// grant); `push-index` lists the people who have one. A push to one device is its own outbox
// item, `push:<reason><person>.<device>@<origin>`: the two digests in base64url address the
// subscription, and the push service's origin is the item's delivery target, so one hung
// service holds only its own slots (deliveryTargetOf in src/store/outbox.ts).
import { createHash } from 'node:crypto';
import type { Role } from '../../domain/principal.ts';
import type { PushSubscriptionInput } from './push-subscription.ts';

/**
 * What authorised a subscription, checked again whenever a push is due: a sign-in session (the
 * SHA-256 of its id), an API key (the SHA-256 of the key), or access control being off.
 */
export type PushGrant = { kind: 'session'; ref: string } | { kind: 'key'; ref: string } | { kind: 'open' };

export interface SubscriberPrincipal {
  id: string;
  roles: readonly Role[];
  restricted: boolean;
}

export interface StoredSubscription {
  subscription: PushSubscriptionInput;
  principal: SubscriberPrincipal;
  grant: PushGrant;
}

export type PushReason = 'asked' | 'remind';

/** The map of everyone who has a subscription (field: sha256(principal id), value: the id). */
export const PUSH_INDEX = 'push-index';
/** The outbox target of a new question's fan-out item (one per question, API.md §19). */
export const PUSH_TARGET = 'push';
/** The longest origin a device target names as it is; a longer one is named by its digest. */
const MAX_ORIGIN_CHARS = 100;

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();
const HEX64 = /^[0-9a-f]{64}$/;
const B64_DIGEST = /^[A-Za-z0-9_-]{43}$/;

export const ownerKey = (principalId: string): string => `push:${sha256(principalId).toString('hex')}`;
export const deviceField = (endpoint: string): string => sha256(endpoint).toString('hex');
export const indexField = (principalId: string): string => sha256(principalId).toString('hex');

/** A stored subscription, or null for one that cannot be read (or predates grants). */
export function parseStored(text: string): StoredSubscription | null {
  try {
    const v = JSON.parse(text) as StoredSubscription;
    const g = v?.grant;
    const grantOk = g?.kind === 'open' || ((g?.kind === 'session' || g?.kind === 'key') && HEX64.test(g.ref));
    if (!grantOk || typeof v.subscription?.endpoint !== 'string' || typeof v.principal?.id !== 'string') {
      return null;
    }
    return v;
  } catch {
    return null;
  }
}

/** The delivery target's name for a push service origin. */
function originName(endpoint: string): string {
  const origin = new URL(endpoint).origin;
  return origin.length <= MAX_ORIGIN_CHARS ? origin : `h-${sha256(origin).toString('hex').slice(0, 32)}`;
}

/** The outbox target of one push to one device. */
export function deviceTarget(principalId: string, endpoint: string, reason: PushReason): string {
  const person = sha256(principalId).toString('base64url');
  const device = sha256(endpoint).toString('base64url');
  return `${PUSH_TARGET}:${reason === 'remind' ? 'r' : 'a'}${person}.${device}@${originName(endpoint)}`;
}

/** Where a device target's subscription is kept (the name is the target after `push:`); null when malformed. */
export function parseDeviceTarget(name: string): { reason: PushReason; owner: string; field: string } | null {
  const at = name.lastIndexOf('@');
  const [person = '', device = ''] = name.slice(1, at).split('.');
  const reason = name[0] === 'r' ? 'remind' : name[0] === 'a' ? 'asked' : null;
  if (at < 0 || reason === null || !B64_DIGEST.test(person) || !B64_DIGEST.test(device)) return null;
  const hex = (b64: string): string => Buffer.from(b64, 'base64url').toString('hex');
  return { reason, owner: `push:${hex(person)}`, field: hex(device) };
}
