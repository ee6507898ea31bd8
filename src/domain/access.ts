// Access rules, once: which questions a principal may see, answer and cancel (API.md §2).
// A question the caller may not see is reported as absent by every operation.
import type { Principal } from './principal.ts';
import { hasRole } from './principal.ts';
import type { QuestionRecord } from './question.ts';

/** A restricted principal sees only questions addressed to it. */
export function audienceScope(p: Principal): string | null {
  return p.restricted ? p.id : null;
}

export function canSee(p: Principal, q: Pick<QuestionRecord, 'audience' | 'askedBy'>): boolean {
  if (p.restricted) return q.audience === p.id;
  if (hasRole(p, 'operator')) return true;
  return hasRole(p, 'agent') && q.askedBy === p.id;
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
