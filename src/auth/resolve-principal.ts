// Who is calling, from whatever credential the request carries: the one rule of every surface
// (the REST door hook, src/http/door-auth.ts, and GraphQL's plugin, src/graphql/auth.ts, both
// call it, so a door means the same on both). A key wins over a cookie. A keyless request with
// the session cookie may be a signed-in person (API.md §19): a state-changing one from another
// origin is refused (403), and an unknown or expired session counts as no credential at all.
import type { Principal } from '../domain/principal.ts';
import type { Authenticator } from './authenticate.ts';
import type { HeaderBag } from './credentials.ts';
import type { PrincipalDoor } from './door-policy.ts';
import type { SessionAuth } from './session-cookie.ts';

/** The caller, and the session it came from (null: a key, or nobody); or why it is refused. */
export type Resolution =
  | { ok: true; principal: Principal; sessionId: string | null }
  | { ok: false; code: 'UNAUTHENTICATED' | 'FORBIDDEN' };

export interface CallerRequest {
  method: string;
  /** Header names in lower case (as Node and the Fetch API's Headers give them). */
  headers: HeaderBag;
}

/**
 * Resolves the caller at `door`: synchronously unless a session must be looked up (a keyless
 * request carrying a cookie), so the common keyed and public requests wait for nothing.
 */
export type PrincipalResolver = (door: PrincipalDoor, req: CallerRequest) => Resolution | Promise<Resolution>;

export function createPrincipalResolver(auth: Authenticator, sessions?: SessionAuth): PrincipalResolver {
  function byKey(door: PrincipalDoor, headers: HeaderBag, keyless: boolean): Resolution {
    const result = keyless ? auth.keyless(door) : auth.authenticate(door, headers);
    return result.ok ? { ok: true, principal: result.principal, sessionId: null } : result;
  }
  return (door, req) => {
    const h = req.headers;
    // A request with neither credential header presents no key: the common case of the public
    // doors, decided without reading the headers through.
    const keyless = h.authorization === undefined && h['x-api-key'] === undefined;
    if (!keyless || !sessions || h.cookie === undefined) return byKey(door, h, keyless);
    return sessions(req).then((session): Resolution => {
      if (session?.ok) return session;
      if (session?.code === 'FORBIDDEN') return session;
      return byKey(door, h, true);
    });
  };
}
