// Delegation and out-of-office (API.md §22), as the engine uses it: people set, read and end
// their own delegation, and the other parts ask one question of it — whom does this identity
// act for right now? One step only: a delegate's own delegation is never followed (no chains).
import { canAnswer } from '../../domain/access.ts';
import { checkDelegation, type Delegation } from '../../domain/delegation.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { DelegationStore } from '../../store/delegations.ts';

export interface DelegationInput {
  to: unknown;
  /** Epoch ms. */
  until: unknown;
  reason?: unknown;
}

export interface Delegations {
  /** Sets (or replaces) the caller's delegation; BAD_USER_INPUT names what is wrong. */
  set(p: Principal, input: DelegationInput): Promise<Delegation>;
  /** Ends the caller's delegation early; false when none was live. */
  end(p: Principal): Promise<boolean>;
  /** The caller's live delegation, or null. */
  get(p: Principal): Promise<Delegation | null>;
  /** The people `id` acts for now (their live delegations name `id`). */
  actingFor(id: string): Promise<string[]>;
  /** Who acts for `id` now, or null. */
  delegateOf(id: string): Promise<string | null>;
}

export function createDelegations(store: DelegationStore, clock: () => number): Delegations {
  const mayDelegate = (p: Principal): void => {
    // Handing on questions is for those who answer them: an agent or an auditor has none.
    if (!canAnswer(p)) throw new DomainError('FORBIDDEN', 'only people who answer questions delegate them');
  };
  return {
    async set(p, input) {
      mayDelegate(p);
      const d = checkDelegation(p.id, input, clock());
      await store.set(d);
      return d;
    },
    async end(p) {
      mayDelegate(p);
      return await store.end(p.id, p.id, clock());
    },
    async get(p) {
      return await store.get(p.id, clock());
    },
    async actingFor(id) {
      return (await store.delegatorsOf(id, clock())).map((d) => d.from);
    },
    async delegateOf(id) {
      return (await store.get(id, clock()))?.to ?? null;
    },
  };
}
