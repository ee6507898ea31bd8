// Who an OpenID Connect sign-in makes a person (API.md §19): the principal `oidc:<sub>`, shown by
// the `name` claim (else `email`, else the id), cleaned here where it enters (display-name.ts),
// with the roles the role map gives the values of the roles claim. A person none of whose values
// is mapped is still let in, but as a restricted operator: they see and answer only questions
// addressed to their own id.
import { displayName } from '../domain/display-name.ts';
import type { Principal, Role } from '../domain/principal.ts';

export interface OidcRoleRules {
  /** The ID token claim holding the roles: a string or an array of strings. */
  readonly rolesClaim: string;
  /** Claim value → role. */
  readonly roleMap: Readonly<Record<string, Role>>;
  /** The ID token claim holding the person's groups (API.md §22); absent: none are read. */
  readonly groupsClaim?: string;
}

/** Most groups kept from one sign-in; a group id is at most 64 characters (domain/groups.ts). */
const CLAIM_GROUPS_MAX = 100;
const GROUP_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** The groups a sign-in's claims name, usable as `group:<id>`: others are dropped. */
function groupsOf(claims: Record<string, unknown>, rules: OidcRoleRules): string[] {
  if (!rules.groupsClaim) return [];
  const valid = claimValues(claims[rules.groupsClaim]).filter((g) => GROUP_ID.test(g));
  return [...new Set(valid)].slice(0, CLAIM_GROUPS_MAX);
}

export type SignedInPrincipal = Principal & { name: string };

function claimValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** The principal of verified ID token claims; null when there is no usable `sub`. */
export function principalFromClaims(
  claims: Record<string, unknown>,
  rules: OidcRoleRules,
): SignedInPrincipal | null {
  const sub = text(claims.sub);
  if (sub === null) return null;
  const id = `oidc:${sub}`;
  const roles = new Set<Role>();
  for (const value of claimValues(claims[rules.rolesClaim])) {
    const role = Object.hasOwn(rules.roleMap, value) ? rules.roleMap[value] : undefined;
    if (role) roles.add(role);
  }
  const name = displayName(id, claims.name, claims.email);
  const groups = groupsOf(claims, rules);
  const inGroups = groups.length > 0 ? { groups: Object.freeze(groups) } : {};
  if (roles.size === 0) {
    return { id, name, roles: Object.freeze(['operator'] as Role[]), restricted: true, ...inGroups };
  }
  return { id, name, roles: Object.freeze([...roles]), restricted: false, ...inGroups };
}
