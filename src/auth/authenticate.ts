// One decision per request: who is calling through this door (API.md §2, §6).
import type { Principal, Role } from '../domain/principal.ts';
import { ANONYMOUS_OPEN } from '../domain/principal.ts';
import type { Keyring } from './api-keys.ts';
import { credentialFrom, type HeaderBag } from './credentials.ts';
import { type DoorPolicy, isPublic, type PrincipalDoor } from './door-policy.ts';

/** The one message of every 401 for a missing or unknown key, on every door (REST and GraphQL). */
export const UNAUTHENTICATED_MESSAGE = 'missing or unknown API key';

/** A caller without a (known) key on a public door: no roles at all. */
export const ANONYMOUS_PUBLIC: Principal = Object.freeze({
  id: 'anonymous',
  roles: Object.freeze([] as Role[]),
  restricted: false,
});

export type AuthResult = { ok: true; principal: Principal } | { ok: false; code: 'UNAUTHENTICATED' };

export interface Authenticator {
  authenticate(door: PrincipalDoor, headers: HeaderBag): AuthResult;
  /** What authenticate gives a request that presents no key at all (no credential header). */
  keyless(door: PrincipalDoor): AuthResult;
}

export interface AuthenticatorOptions {
  accessControl: boolean;
  keyring: Keyring;
  policy: DoorPolicy;
}

export function createAuthenticator({ accessControl, keyring, policy }: AuthenticatorOptions): Authenticator {
  function keyless(door: PrincipalDoor): AuthResult {
    if (!accessControl) return { ok: true, principal: ANONYMOUS_OPEN };
    if (isPublic(policy, door)) return { ok: true, principal: ANONYMOUS_PUBLIC };
    return { ok: false, code: 'UNAUTHENTICATED' };
  }
  return {
    authenticate(door: PrincipalDoor, headers: HeaderBag): AuthResult {
      if (!accessControl) return { ok: true, principal: ANONYMOUS_OPEN };
      const key = credentialFrom(headers);
      const principal = key === null ? null : keyring.authenticate(key);
      if (principal !== null) return { ok: true, principal };
      return keyless(door);
    },
    keyless,
  };
}
