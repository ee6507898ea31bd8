// Web Push wiring (API.md §19): the VAPID keys (from INTERACTIONS_VAPID_KEYS_FILE, or a pair
// made now, with a warning), the sender the engine's push module posts through (web-push, a
// well-kept implementation of RFC 8291 (aes128gcm payload encryption) and RFC 8292 (VAPID),
// builds each request), and the authority check: whether what authorised a subscription (a
// session, a configured key, access control being off) still does when a push is due.
import webpush from 'web-push';
import type { PrincipalConfig } from '../auth/api-keys.ts';
import { discardBody } from '../channels/response-body.ts';
import type { Logger } from '../engine/logger.ts';
import type { Directory } from '../engine/people/directory.ts';
import type { People } from '../engine/people/people.ts';
import { pushPresence } from '../engine/people/presence.ts';
import { createPush, type Push, type PushAuthority, type PushSender } from '../engine/people/push.ts';
import type { QuestionStore } from '../store/types.ts';
import type { Config } from './config.ts';
import { DEFAULT_VAPID_SUBJECT } from './settings/push.ts';

/** Each push gets this long (connect and response) before it counts as failed. */
export const PUSH_TIMEOUT_MS = 10_000;
/** A push not delivered within a day is not worth showing any more. */
export const PUSH_TTL_SECONDS = 24 * 3600;

const DAY_MS = 24 * 3600 * 1000;

/** How long a VAPID token is valid (web-push's default; RFC 8292 allows at most 24 h). */
export const VAPID_TOKEN_SECONDS = 12 * 3600;
/** How long one token is reused for its push service: it is still valid 11 h after its last use. */
export const VAPID_REUSE_MS = 3600 * 1000;
/** Push services whose tokens are kept at once (the allowed hosts bound them; this bounds memory). */
const VAPID_CACHE_MAX = 1000;

/**
 * The `Authorization: vapid t=…, k=…` header (RFC 8292) for an endpoint's push service. A token
 * names only the push service's origin, the subject and an expiry, so one serves every push to
 * that origin: web-push signs a new ES256 token for each push, which was a quarter of the
 * server's CPU sending one question to 1,000 devices (bench/README.md, "Web Push"). Each is
 * made by web-push's own getVapidHeaders and kept VAPID_REUSE_MS.
 */
export function createVapidHeaders(
  keys: { subject: string; publicKey: string; privateKey: string },
  clock: () => number = Date.now,
): (endpoint: string) => string {
  const kept = new Map<string, { header: string; until: number }>();
  return (endpoint) => {
    const u = new URL(endpoint);
    // What web-push names the audience: the endpoint's scheme and host (with a port if any).
    const audience = `${u.protocol}//${u.host}`;
    const now = clock();
    const hit = kept.get(audience);
    if (hit && now < hit.until) return hit.header;
    const exp = Math.floor(now / 1000) + VAPID_TOKEN_SECONDS;
    const { Authorization } = webpush.getVapidHeaders(
      audience,
      keys.subject,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
      exp,
    );
    if (kept.size >= VAPID_CACHE_MAX) kept.clear();
    kept.set(audience, { header: String(Authorization), until: now + VAPID_REUSE_MS });
    return String(Authorization);
  };
}

/**
 * API.md §19: a key's subscriptions last while that key (its SHA-256) is configured for the
 * same principal, and follow its roles now; a session's while the session lives, then until
 * the grace after the person's last sign-in (a sign-out has already ended them); a subscription
 * made with access control off while it stays off.
 */
export function pushAuthority(
  config: Pick<Config, 'accessControl' | 'pushGraceDays'>,
  principals: readonly PrincipalConfig[],
  people: Pick<People, 'sessionLive' | 'lastSignIn'>,
): PushAuthority {
  const byKey = new Map(principals.map((p) => [p.keySha256.toLowerCase(), p]));
  const graceMs = config.pushGraceDays * DAY_MS;
  return {
    async live(grant, now) {
      if (grant.kind === 'open') return !config.accessControl;
      if (grant.kind === 'key') return config.accessControl && byKey.has(grant.ref);
      return config.accessControl && (await people.sessionLive(grant.ref, now));
    },
    async current(grant, subscriber, now) {
      if (!config.accessControl) return grant.kind === 'open' ? subscriber : null;
      if (grant.kind === 'open') return null;
      if (grant.kind === 'key') {
        const p = byKey.get(grant.ref);
        return p?.id === subscriber.id ? { id: p.id, roles: p.roles, restricted: p.restricted } : null;
      }
      if (await people.sessionLive(grant.ref, now)) return subscriber;
      const last = await people.lastSignIn(subscriber.id, now);
      return last !== null && now < last + graceMs ? subscriber : null;
    },
  };
}

export interface PushSetup {
  store: Pick<QuestionStore, 'people' | 'outbox' | 'delegations' | 'get'>;
  /** The process's one People (sessions and sign-ins the authority checks). */
  people: People;
  /** The keys configured now (with a minted admin key, if any). */
  principals: readonly PrincipalConfig[];
  logger: Logger;
  /** Wakes the outbox worker once pushes were queued. */
  kick: () => void;
  /** Groups (API.md §22): a group's questions are pushed to its members. */
  directory?: Directory;
}

export function setUpPush(config: Config, o: PushSetup): Push {
  const { logger } = o;
  let keys = config.vapidKeys;
  if (keys === null) {
    const made = webpush.generateVAPIDKeys();
    keys = { ...made, subject: DEFAULT_VAPID_SUBJECT };
    logger.warn(
      {},
      'INTERACTIONS_VAPID_KEYS_FILE is not set: a VAPID key pair was generated for this run; every ' +
        'device must subscribe again after a restart, and instances do not share it',
    );
  }
  const vapidHeader = createVapidHeaders(keys);
  // web-push builds the request (the encrypted body; the VAPID header comes from the cache
  // above); we send it ourselves: bounded in time, no redirect followed, at most a few KiB of
  // the answer read.
  const send: PushSender = async (subscription, payload) => {
    const r = webpush.generateRequestDetails(subscription, payload, {
      // Falsy on purpose: web-push would sign a new token for every push.
      vapidDetails: null,
      headers: { Authorization: vapidHeader(subscription.endpoint) },
      TTL: PUSH_TTL_SECONDS,
      contentEncoding: 'aes128gcm',
    });
    const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
    const res = await fetch(r.endpoint, {
      method: r.method,
      headers,
      body: new Uint8Array(r.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
    await discardBody(res);
    return { status: res.status };
  };
  return createPush({
    people: o.store.people,
    outbox: o.store.outbox,
    kick: o.kick,
    send,
    authority: pushAuthority(config, o.principals, o.people),
    publicKey: keys.publicKey,
    hosts: config.pushHosts,
    logger,
    ...(o.directory ? { withGroups: o.directory.withGroups } : {}),
    ...pushPresence(o.store),
  });
}
