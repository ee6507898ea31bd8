// Web Push wiring (API.md §19): the VAPID keys (from INTERACTIONS_VAPID_KEYS_FILE, or a pair
// made now, with a warning), and the sender the engine's push module posts through: web-push,
// a well-kept implementation of RFC 8291 (aes128gcm payload encryption) and RFC 8292 (VAPID),
// builds each request.
import webpush from 'web-push';
import { discardBody } from '../channels/response-body.ts';
import type { Logger } from '../engine/logger.ts';
import { createPush, type Push, type PushSender } from '../engine/people/push.ts';
import type { PeopleStore } from '../store/people.ts';
import type { Config } from './config.ts';
import { DEFAULT_VAPID_SUBJECT } from './settings/push.ts';

/** Each push gets this long (connect and response) before it counts as failed. */
export const PUSH_TIMEOUT_MS = 10_000;
/** A push not delivered within a day is not worth showing any more. */
export const PUSH_TTL_SECONDS = 24 * 3600;

export function setUpPush(config: Config, people: PeopleStore, logger: Logger): Push {
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
  const vapidDetails = { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey };
  // web-push builds the request (the encrypted body, the VAPID header); we send it ourselves:
  // bounded in time, no redirect followed, at most a few KiB of the answer read.
  const send: PushSender = async (subscription, payload) => {
    const r = webpush.generateRequestDetails(subscription, payload, {
      vapidDetails,
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
  return createPush({ people, send, publicKey: keys.publicKey, hosts: config.pushHosts, logger });
}
