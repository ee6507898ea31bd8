// What authorised a request to subscribe to pushes (API.md §19), kept with the subscription so
// the subscription lives no longer than it: the door hook (door-auth.ts) has already decided who
// is calling, by the same rule read here: a key header wins over a session cookie, and with
// access control off everyone is ANONYMOUS_OPEN. Only digests are kept, never a key or a
// session id.
import { sha256Hex } from '../auth/api-keys.ts';
import { credentialFrom, type HeaderBag } from '../auth/credentials.ts';
import { cookieValue, SESSION_COOKIE } from '../auth/session-cookie.ts';
import { ANONYMOUS_OPEN, type Principal } from '../domain/principal.ts';
import { sessionRef } from '../engine/people/people.ts';
import type { PushGrant } from '../engine/people/push.ts';

export function pushGrantOf(headers: HeaderBag, principal: Principal): PushGrant {
  if (principal === ANONYMOUS_OPEN) return { kind: 'open' };
  const keyless = headers.authorization === undefined && headers['x-api-key'] === undefined;
  if (!keyless) {
    const key = credentialFrom(headers);
    // No key read means the door let a keyless caller in (a public door): nothing to keep.
    return key === null ? { kind: 'open' } : { kind: 'key', ref: sha256Hex(key) };
  }
  const session = cookieValue(headers, SESSION_COOKIE);
  return session === null ? { kind: 'open' } : { kind: 'session', ref: sessionRef(session) };
}
