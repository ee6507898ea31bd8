// Access rules, once: which questions a principal may see, answer and cancel (API.md §2).
// A question the caller may not see is reported as absent by every operation.
import { DomainError } from './errors.ts';
import type { Principal } from './principal.ts';
import { hasRole } from './principal.ts';
import type { QuestionRecord } from './question.ts';

export function canSee(
  p: Principal,
  q: Pick<QuestionRecord, 'audience' | 'askedBy'> & Partial<Pick<QuestionRecord, 'action'>>,
): boolean {
  if (p.restricted)
    return q.audience === p.id || (q.audience !== null && (p.actsFor?.includes(q.audience) ?? false));
  // An auditor reads every question (API.md §2) but may not ask, answer or cancel.
  if (hasRole(p, 'operator', 'auditor')) return true;
  return hasRole(p, 'agent') && (q.askedBy === p.id || isExecutor(p, q));
}

/** A principal the asker named in `action.executors` (§23): it may read and consume the approval. */
export function isExecutor(p: Principal, q: Partial<Pick<QuestionRecord, 'action'>>): boolean {
  return !p.restricted && (q.action?.executors?.includes(p.id) ?? false);
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

/**
 * The listing scope of a principal, applied before paging so counts are honest:
 * restricted → its own audience; an agent → what it asked; no role → nothing.
 */
export function visibilityScope(p: Principal): { audience?: string; askedBy?: string } | 'none' {
  if (p.restricted) return { audience: p.id };
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
  return JSON.stringify(p.restricted && p.actsFor?.length ? [scope, p.actsFor] : scope);
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
