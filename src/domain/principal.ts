// Who is calling, and what each role may do (API.md §2). Pure rules; keys live in src/auth/.

export const ROLES = ['agent', 'operator', 'auditor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Principal {
  id: string;
  roles: readonly Role[];
  restricted: boolean;
  /** The person's name to show (a signed-in person's `name` or `email` claim, API.md §19); the id stays the record's. */
  name?: string;
  /** This key's own cap on its pending questions (INTERACTIONS_API_KEYS `maxPending`); else the server's. */
  maxPending?: number;
  /**
   * The groups this principal belongs to (API.md §22): the groups file's and the manifest's that
   * list its id, and a signed-in person's INTERACTIONS_OIDC_GROUPS_CLAIM values. Absent: none.
   */
  groups?: readonly string[];
  /**
   * The people who delegated their questions to this principal, as the engine read them for one
   * feed or listing (API.md §22): a restricted principal also sees the questions addressed to them.
   */
  actsFor?: readonly string[];
  /**
   * The rotations (`oncall:<id>`) the people in `actsFor` take turns on, read with it: a question
   * a rotation routed to one of them is theirs to hand on, so their delegate's feed and paged
   * listing include it.
   */
  routedAudiences?: readonly string[];
}

/** The identity used when access control is off: every door open, no key. */
export const ANONYMOUS_OPEN: Principal = Object.freeze({
  id: 'anonymous',
  roles: Object.freeze(['admin'] as Role[]),
  restricted: false,
});

export function hasRole(p: Principal, ...roles: Role[]): boolean {
  return p.roles.includes('admin') || roles.some((r) => p.roles.includes(r));
}

/**
 * The audit log (API.md §17) is read by admins and auditors. A restricted principal is confined
 * to its own audience, and the log covers every question: it may not read it.
 */
export function canReadAudit(p: Principal): boolean {
  return !p.restricted && hasRole(p, 'auditor');
}
