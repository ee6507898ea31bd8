// The sign-in session's cookie and the rule for requests that carry it (API.md §19). A person's
// browser sends the cookie with every request to our origin, including requests another site
// makes it send; so a state-changing request authenticated by the cookie must also carry an
// `Origin` header equal to the server's own, or it is refused (403). Keys (Authorization,
// X-Api-Key) are never sent by a browser on its own and need no such check.
import type { Principal } from '../domain/principal.ts';
import type { HeaderBag } from './credentials.ts';

export const SESSION_COOKIE = 'tai_session';
/** Binds a login in flight to the browser that started it (its value is the login's state). */
export const LOGIN_COOKIE = 'tai_login';

/** Methods that change nothing (RFC 9110 safe methods): no Origin needed. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A live session's principal and id (logout ends that id), or why the cookie counts for nothing. */
export type SessionAuthResult =
  | { ok: true; principal: Principal; sessionId: string }
  | { ok: false; code: 'UNAUTHENTICATED' | 'FORBIDDEN' };

/**
 * Who a request's session cookie names: null when it carries none (the caller then treats the
 * request as keyless), else the principal, 401 for an unknown or expired session, or 403 for a
 * state-changing request whose Origin is not the server's own.
 */
export type SessionAuth = (req: { method: string; headers: HeaderBag }) => Promise<SessionAuthResult | null>;

export const FOREIGN_ORIGIN_MESSAGE = 'a request signed in by cookie must come from this server’s own pages';

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join('; ') : value;
}

/** One cookie's value from a Cookie header, or null (absent, or given more than once). */
export function cookieValue(headers: HeaderBag, name: string): string | null {
  const header = one(headers.cookie);
  if (!header) return null;
  let found: string | null = null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    // Two cookies of one name (a path-scoped copy, a planted one): neither is believed.
    if (found !== null) return null;
    found = part.slice(eq + 1).trim();
  }
  return found;
}

/** Whether a cookie-authenticated request may go on: safe methods always, others from our origin. */
export function originAllowed(method: string, headers: HeaderBag, ownOrigins: readonly string[]): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  const origin = one(headers.origin);
  return origin !== undefined && ownOrigins.includes(origin);
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
  path?: string;
}

/** A Set-Cookie value: httpOnly, SameSite=Lax, Secure on https (API.md §19). */
export function setCookie(name: string, value: string, o: CookieOptions): string {
  const parts = [
    `${name}=${value}`,
    `Path=${o.path ?? '/'}`,
    `Max-Age=${Math.max(0, Math.floor(o.maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (o.secure) parts.push('Secure');
  return parts.join('; ');
}
