// Where grants live (API.md §20): each grant as given (JSON), its use count, the ids each person
// gave, and a generation every give, revoke and last use advances (every instance polls it
// beside the rules' one). Give, use and revoke are each one atomic step with their audit entry
// (GRANT_GIVEN, GRANT_USED, GRANT_REVOKED); a use checks expiry and maxUses in that step, so
// maxUses holds under any concurrency, and a revoked grant is never used again anywhere.
import type { Grant, StoredGrant } from '../domain/policy/grant.ts';

export type { StoredGrant };

export interface GrantStore {
  /** Every grant kept (expired ones may linger until the next give; callers filter by time). */
  list(): Promise<StoredGrant[]>;
  /** The grants `person` gave that are still active at `now`. */
  byPerson(person: string, now: number): Promise<StoredGrant[]>;
  get(id: string): Promise<StoredGrant | null>;
  generation(): Promise<number>;
  /** Keeps a grant and writes GRANT_GIVEN; 'limit' when its giver has `max` active grants. */
  give(grant: Grant, max: number, now: number): Promise<'given' | 'limit'>;
  /**
   * Counts one use for question `questionId` and writes GRANT_USED; 'gone' (nothing written)
   * when the grant is revoked, expired or used up. The last allowed use removes it.
   */
  use(id: string, questionId: string, now: number): Promise<'used' | 'gone'>;
  /** Removes it and writes GRANT_REVOKED by `actor`; false when there was none. */
  revoke(id: string, actor: string, now: number): Promise<boolean>;
}

/** The GRANT_GIVEN entry's facts: no arguments, only their digest. */
export function grantGivenDetail(g: Grant): Record<string, string | number | null> {
  return {
    grantId: g.id,
    scope: g.scope,
    action: g.action,
    asker: g.asker,
    actionDigest: g.actionDigest,
    expiresAt: new Date(g.expiresAt).toISOString(),
    maxUses: g.maxUses,
    // Given as a delegate (API.md §22): whom for, as the ANSWERED entry says.
    ...(g.onBehalfOf ? { onBehalfOf: g.onBehalfOf } : {}),
  };
}
