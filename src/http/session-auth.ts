// The session cookie as a credential (API.md §19): looks the cookie's session up in the shared
// store and applies the Origin rule of auth/session-cookie.ts. The server's own origin is the
// public base URL's when one is configured, else the one the request names in its Host header
// (which the Host check has already accepted).

import type { HeaderBag } from '../auth/credentials.ts';
import { cookieValue, originAllowed, SESSION_COOKIE, type SessionAuth } from '../auth/session-cookie.ts';
import type { People } from '../engine/people/people.ts';

/** Session ids are 32 random bytes in base64url; anything else is not looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export interface SessionAuthOptions {
  people: People;
  /** The configured public base URL's origin; null when it is only the default. */
  publicOrigin: string | null;
  clock?: () => number;
}

function header(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The origins a request may come from: the public one, or http(s) on the Host it names. */
export function ownOriginsOf(headers: HeaderBag, publicOrigin: string | null): string[] {
  if (publicOrigin !== null) return [publicOrigin];
  const host = header(headers, 'host');
  return host ? [`http://${host}`, `https://${host}`] : [];
}

export function createSessionAuth({
  people,
  publicOrigin,
  clock = Date.now,
}: SessionAuthOptions): SessionAuth {
  return async ({ method, headers }) => {
    const id = cookieValue(headers, SESSION_COOKIE);
    if (id === null) return null;
    if (!SESSION_ID.test(id)) return { ok: false, code: 'UNAUTHENTICATED' };
    // Origin first: a foreign page learns nothing about the session, not even whether it lives.
    if (!originAllowed(method, headers, ownOriginsOf(headers, publicOrigin))) {
      return { ok: false, code: 'FORBIDDEN' };
    }
    const session = await people.session(id, clock());
    return session
      ? { ok: true, principal: session.principal, sessionId: id }
      : { ok: false, code: 'UNAUTHENTICATED' };
  };
}
