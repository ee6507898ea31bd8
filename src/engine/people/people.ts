// People signed in through OpenID Connect (API.md §19): their sessions, the logins in flight
// and the names principals are shown by. Kept in the store's people table, so every instance
// shares them: a session opened on one instance works on all, and a logout on one ends it
// everywhere. Only the SHA-256 of a session id or of a login's state is stored; the ids
// themselves live in the browser's cookie and nowhere else.
import { createHash, randomBytes } from 'node:crypto';
import { cleanName, DISPLAY_NAME_MAX_CHARS, displayName } from '../../domain/display-name.ts';
import type { Principal, Role } from '../../domain/principal.ts';
import { ROLES } from '../../domain/principal.ts';
import type { PeopleStore } from '../../store/people.ts';

/** What a login keeps between the redirect to the provider and the callback. */
export interface LoginState {
  codeVerifier: string;
  nonce: string;
}

export interface SessionInfo {
  principal: Principal & { name: string };
  expiresAt: number;
  /** When the person signed in (epoch ms); a passkey registration needs it recent (API.md §23). */
  signedInAt?: number;
}

export interface People {
  /** Keeps a login under its state until `expiresAt`. */
  saveLogin(state: string, login: LoginState, expiresAt: number): Promise<void>;
  /** The login of `state`, once: a second callback with the same state finds nothing. */
  takeLogin(state: string, now: number): Promise<LoginState | null>;
  /** Opens a session for `principal` and remembers its name; resolves with the new session id. */
  openSession(principal: Principal & { name: string }, expiresAt: number): Promise<string>;
  /** The live session of `sessionId`, or null (unknown, expired and ended look the same). */
  session(sessionId: string, now: number): Promise<SessionInfo | null>;
  /** Ends a session (logout); true when it was live. */
  closeSession(sessionId: string): Promise<boolean>;
  /** Whether the session whose id has SHA-256 `ref` (sessionRef) is live at `now`. */
  sessionLive(ref: string, now: number): Promise<boolean>;
  /** When `principalId` last signed in (epoch ms), or null when not within NAME_KEEP_MS. */
  lastSignIn(principalId: string, now: number): Promise<number | null>;
  /** Remembers the name a principal is shown by (sign-in, a channel's user). */
  rememberName(principalId: string, name: string): Promise<void>;
  /** The names known for `ids` (unknown ones are absent). */
  names(ids: Iterable<string>): Promise<ReadonlyMap<string, string>>;
}

/** A name is kept this long after it was last seen (renewed at every sign-in). */
export const NAME_KEEP_MS = 400 * 24 * 3600 * 1000;
/** Names are shown, not trusted: one line, bounded (domain/display-name.ts). */
export const NAME_MAX_CHARS = DISPLAY_NAME_MAX_CHARS;
export { cleanName };

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** How a session is named where its id may not be kept (a push subscription's grant): its SHA-256. */
export const sessionRef = (sessionId: string): string => sha256(sessionId);

function parseSession(text: string | null): SessionInfo | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as SessionInfo;
    const p = v.principal;
    if (typeof p?.id !== 'string' || typeof p.name !== 'string' || !Array.isArray(p.roles)) return null;
    const roles = p.roles.filter((r): r is Role => (ROLES as readonly string[]).includes(r));
    const groups = Array.isArray(p.groups) ? p.groups.filter((g) => typeof g === 'string') : [];
    return {
      principal: {
        id: p.id,
        name: p.name,
        roles: Object.freeze(roles),
        restricted: p.restricted === true,
        // The groups the sign-in's claim named (API.md §22); the configured ones are added per request.
        ...(groups.length > 0 ? { groups: Object.freeze(groups) } : {}),
      },
      expiresAt: Number(v.expiresAt),
      ...(typeof v.signedInAt === 'number' ? { signedInAt: v.signedInAt } : {}),
    };
  } catch {
    return null;
  }
}

export function createPeople(store: PeopleStore, clock: () => number = Date.now): People {
  const sessionKey = (id: string): string => `session:${sessionRef(id)}`;
  const signInKey = (principalId: string): string => `signin:${sha256(principalId)}`;
  const nameKey = (id: string): string => `name:${sha256(id)}`;
  const rememberName = async (principalId: string, name: string): Promise<void> => {
    const clean = cleanName(name);
    if (clean !== '') await store.put(nameKey(principalId), clean, clock() + NAME_KEEP_MS);
  };
  return {
    async saveLogin(state, login, expiresAt) {
      await store.put(`login:${sha256(state)}`, JSON.stringify(login), expiresAt);
    },
    async takeLogin(state, now) {
      const text = await store.take(`login:${sha256(state)}`, now);
      if (text === null) return null;
      try {
        const v = JSON.parse(text) as LoginState;
        return typeof v.codeVerifier === 'string' && typeof v.nonce === 'string' ? v : null;
      } catch {
        return null;
      }
    },
    async openSession(principal, expiresAt) {
      // 256 random bits: the cookie is the whole credential.
      const id = randomBytes(32).toString('base64url');
      const stored: SessionInfo = {
        principal: {
          id: principal.id,
          // Cleaned where it entered (auth/oidc-principal.ts); a principal from elsewhere is too.
          name: displayName(principal.id, principal.name),
          roles: principal.roles,
          restricted: principal.restricted,
          ...(principal.groups?.length ? { groups: principal.groups } : {}),
        },
        expiresAt,
        signedInAt: clock(),
      };
      await store.put(sessionKey(id), JSON.stringify(stored), expiresAt);
      await rememberName(principal.id, principal.name);
      // The grace of the person's push subscriptions counts from here (API.md §19).
      const now = clock();
      await store.put(signInKey(principal.id), String(now), now + NAME_KEEP_MS);
      return id;
    },
    async session(sessionId, now) {
      const info = parseSession(await store.get(sessionKey(sessionId), now));
      return info && info.expiresAt > now ? info : null;
    },
    async closeSession(sessionId) {
      return await store.delete(sessionKey(sessionId));
    },
    async sessionLive(ref, now) {
      const info = parseSession(await store.get(`session:${ref}`, now));
      return info !== null && info.expiresAt > now;
    },
    async lastSignIn(principalId, now) {
      const at = Number(await store.get(signInKey(principalId), now));
      return Number.isSafeInteger(at) && at > 0 ? at : null;
    },
    rememberName,
    async names(ids) {
      const unique = [...new Set(ids)];
      const now = clock();
      const found = await Promise.all(unique.map((id) => store.get(nameKey(id), now)));
      const out = new Map<string, string>();
      unique.forEach((id, i) => {
        const name = found[i];
        if (name != null) out.set(id, name);
      });
      return out;
    },
  };
}
