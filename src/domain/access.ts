// Access rules, once: which questions a principal may see, answer and cancel (API.md §2).
// A question the caller may not see is reported as absent by every operation.
import { DomainError } from './errors.ts';
import { addressedGroup, GROUP_PREFIX, ONCALL_PREFIX } from './groups.ts';
import type { Principal } from './principal.ts';
import { hasRole } from './principal.ts';
import type { QuestionRecord } from './question.ts';

export function canSee(
  p: Principal,
  q: Pick<QuestionRecord, 'audience' | 'askedBy'> & Partial<Pick<QuestionRecord, 'action' | 'routedTo'>>,
): boolean {
  if (p.restricted)
    return (
      q.audience === p.id || isAddressedTo(p, q) || (p.actsFor?.includes(addressedPerson(q) ?? '') ?? false)
    );
  // An auditor reads every question (API.md §2) but may not ask, answer or cancel.
  if (hasRole(p, 'operator', 'auditor')) return true;
  return hasRole(p, 'agent') && (q.askedBy === p.id || isExecutor(p, q));
}

/** A principal the asker named in `action.executors` (§23): it may read and consume the approval. */
export function isExecutor(p: Principal, q: Partial<Pick<QuestionRecord, 'action'>>): boolean {
  return !p.restricted && (q.action?.executors?.includes(p.id) ?? false);
}

/**
 * The one person a question is addressed to (API.md §22), whose delegate acts for them: the
 * person a rotation routed it to (`oncall:<id>`), or a person named as the audience; null when it
 * is for everyone who may see it, or for a group's members.
 */
export function addressedPerson(
  q: Pick<QuestionRecord, 'audience'> & Partial<Pick<QuestionRecord, 'routedTo'>>,
): string | null {
  if (q.routedTo != null) return q.routedTo;
  return q.audience !== null && addressedGroup(q.audience) === null ? q.audience : null;
}

/**
 * Whether a question addressed to a group or a rotation (`group:<id>`, `oncall:<id>`, API.md §22)
 * is for `p`: it is a member of that group, or the one the rotation routed it to.
 */
export function isAddressedTo(
  p: Principal,
  q: Pick<QuestionRecord, 'audience'> & Partial<Pick<QuestionRecord, 'routedTo'>>,
): boolean {
  const group = addressedGroup(q.audience);
  if (group === null) return false;
  return (q.routedTo != null && q.routedTo === p.id) || (p.groups?.includes(group) ?? false);
}

/**
 * Whether a new question or a reminder is pushed to `p` (API.md §22): one addressed to a group
 * goes to its members only, one routed by a rotation to the person on duty only; any other to
 * whoever may see it.
 */
export function isNotified(
  p: Principal,
  q: Pick<QuestionRecord, 'audience' | 'askedBy'> & Partial<Pick<QuestionRecord, 'action' | 'routedTo'>>,
): boolean {
  if (!canSee(p, q)) return false;
  const group = addressedGroup(q.audience);
  if (group === null) return true;
  if (q.audience?.startsWith(ONCALL_PREFIX) && q.routedTo != null) return q.routedTo === p.id;
  return p.groups?.includes(group) ?? false;
}

export function canAnswer(p: Principal): boolean {
  return hasRole(p, 'operator');
}

export function canCancel(p: Principal, q: Pick<QuestionRecord, 'askedBy'>): boolean {
  return hasRole(p, 'operator') || (hasRole(p, 'agent') && q.askedBy === p.id);
}

export function canAsk(p: Principal): boolean {
  return hasRole(p, 'agent');
}

/** Where a principal's reads are confined: one audience, what it asked, or (see `audiences`) more. */
export interface VisibilityScope {
  audience?: string;
  askedBy?: string;
  /**
   * A restricted member of groups sees several audiences: its own id and each of its groups'
   * `group:<id>` and `oncall:<id>` (API.md §22); `audience` is then the first of them.
   */
  audiences?: readonly string[];
  /**
   * A delegate's extra reads (API.md §22): the rotations its delegators are on, of whose
   * questions only those routed to one of `people` are its to see. Read by the pending feed
   * (each record checked with `canSee`) and by the paged listing (one store filter per rotation
   * and person, on the store's `routedTo` index, so its counts stay honest).
   */
  routed?: { audiences: readonly string[]; people: readonly string[] };
}

/**
 * The listing scope of a principal, applied before paging so counts are honest:
 * restricted → its own audience (and its groups'); an agent → what it asked; no role → nothing.
 */
export function visibilityScope(p: Principal): VisibilityScope | 'none' {
  if (p.restricted) {
    const groups = p.groups ?? [];
    // A delegate also sees the questions of the people it acts for (API.md §22).
    const delegators = p.actsFor ?? [];
    if (groups.length === 0 && delegators.length === 0) return { audience: p.id };
    const audiences = [p.id, ...delegators, ...groups.flatMap((g) => [GROUP_PREFIX + g, ONCALL_PREFIX + g])];
    const routed = (p.routedAudiences ?? []).filter((a) => !audiences.includes(a));
    return routed.length > 0 && delegators.length > 0
      ? { audience: p.id, audiences, routed: { audiences: routed, people: delegators } }
      : { audience: p.id, audiences };
  }
  if (hasRole(p, 'operator', 'auditor')) return {};
  if (hasRole(p, 'agent')) return { askedBy: p.id };
  return 'none';
}

/**
 * What `canSee` depends on, as a string: principals with the same key see the same questions
 * (both follow `visibilityScope`'s branches), so a check for one of them holds for all.
 */
export function visibilityKey(p: Principal): string {
  const scope = visibilityScope(p);
  return JSON.stringify(scope);
}

/**
 * The audience of a new question: a restricted asker's questions are addressed to itself,
 * and it may not address anyone else.
 */
export function audienceFor(p: Principal, requested: string | null): string | null {
  if (!p.restricted) return requested;
  if (requested !== null && requested !== p.id) {
    throw new DomainError('FORBIDDEN', 'a restricted key may only ask its own audience', 'input.audience');
  }
  return p.id;
}
