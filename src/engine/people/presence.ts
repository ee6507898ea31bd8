// API.md §22's personal settings and marks, as one part of the engine: delegations, quiet hours
// and digests, and claims. The GraphQL operations, the inbox and the CLI use it through
// `Interactions.presence`; the push sender is given its delegate lookup and quiet gate here.
import { ONCALL_PREFIX } from '../../domain/groups.ts';
import type { NotificationPrefs } from '../../domain/notification-prefs.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { QuestionStore } from '../../store/types.ts';
import { type Claim, type Claims, createClaims } from './claims.ts';
import { createDelegations, type Delegations } from './delegation.ts';
import type { Directory } from './directory.ts';
import { createNotificationPrefs, type NotificationPrefsService } from './notification-prefs.ts';
import { createQuietGate, type QuietGate } from './quiet-gate.ts';

export interface Presence {
  readonly delegations: Delegations;
  readonly prefs: NotificationPrefsService;
  /** Claims are made on a question the caller may see: `id` is looked up as `visible` does. */
  claim(p: Principal, id: string): Promise<{ question: QuestionRecord; claim: Claim }>;
  unclaim(p: Principal, id: string): Promise<QuestionRecord>;
  claimOf(q: Pick<QuestionRecord, 'id' | 'status'>): Promise<Claim | null>;
  /** `p` with the people it acts for now (a feed, a listing): see Principal.actsFor. */
  acting(p: Principal): Promise<Principal>;
}

export type { Claim, NotificationPrefs };

export function createPresence(
  store: QuestionStore,
  clock: () => number,
  visible: (p: Principal, id: unknown) => Promise<QuestionRecord>,
  directory?: Directory,
): Presence {
  const delegations = createDelegations(store.delegations, clock);
  const claims: Claims = createClaims(store.people, clock);
  return {
    delegations,
    prefs: createNotificationPrefs(store.people, clock),
    async claim(p, id) {
      const question = await visible(p, id);
      return { question, claim: await claims.claim(p, question) };
    },
    async unclaim(p, id) {
      const question = await visible(p, id);
      await claims.unclaim(p, question);
      return question;
    },
    claimOf: (q) => claims.of(q),
    acting: (p) => actingNow(p, delegations, directory),
  };
}

/**
 * `p` with the people it acts for now (their live delegations to it) and the rotations they are
 * on. Only a restricted person needs it, and only when the caller did not say already (a feed's
 * principal comes with them): everyone else sees every question anyway (§2), and reads nothing.
 * The feeds and the paged listing (views/listing.ts) both ask it here, through `acting`.
 */
async function actingNow(
  p: Principal,
  delegations: Pick<Delegations, 'actingFor'>,
  directory: Directory | undefined,
): Promise<Principal> {
  if (!p.restricted || p.actsFor !== undefined) return p;
  const actsFor = await delegations.actingFor(p.id);
  return actsFor.length === 0 ? p : withRotations({ ...p, actsFor }, directory);
}

/**
 * `p` (acting for `p.actsFor`) with the rotations those people are on (`routedAudiences`): what a
 * rotation routes to them is handed on too (§22). The feed and the paged listing both read it.
 */
export function withRotations(p: Principal, directory: Directory | undefined): Principal {
  const actsFor = p.actsFor ?? [];
  if (actsFor.length === 0) return p;
  const routedAudiences = [...(directory?.groups.values() ?? [])]
    .filter((g) => g.rotation?.order.some((id) => actsFor.includes(id)))
    .map((g) => ONCALL_PREFIX + g.id);
  return routedAudiences.length === 0 ? p : { ...p, routedAudiences };
}

/** What the push sender needs of §22: the delegate lookup and the quiet-hours gate. */
export function pushPresence(
  store: Pick<QuestionStore, 'people' | 'delegations' | 'get'>,
  clock: () => number = Date.now,
): { delegateOf: (id: string) => Promise<string | null>; gate: QuietGate } {
  const delegations = createDelegations(store.delegations, clock);
  const prefs = createNotificationPrefs(store.people, clock);
  return {
    delegateOf: (id) => delegations.delegateOf(id),
    gate: createQuietGate({
      people: store.people,
      prefsOf: (id) => prefs.get(id),
      async pendingOf(ids) {
        const found = await Promise.all(ids.map((id) => store.get(id)));
        return new Set(found.filter((q) => q?.status === 'PENDING').map((q) => q!.id));
      },
      clock,
    }),
  };
}
