// Deciding several cards at once (issue 44 item 3): which cards may join a batch, and the answer a
// batch's Approve or Reject gives each. Only decisions a person can make without looking inside:
// CONFIRM, and APPROVAL whose action is not editable and asks no step-up. Each is still sent as
// its own answer, checked by the server on its own, with its own receipt.
import type { Question } from './model.ts';

export type BatchDecision = 'APPROVED' | 'REJECTED';

export function batchable(q: Question): boolean {
  if (q.status !== 'PENDING' || q.sensitive) return false;
  if (q.format === 'CONFIRM') return true;
  if (q.format !== 'APPROVAL' || !q.action) return false;
  const assurance = (q.action as { assurance?: unknown }).assurance;
  return !q.action.editable && assurance !== 'HIGH';
}

/** The answer a batch decision gives one question. */
export function batchAnswer(q: Question, decision: BatchDecision): unknown {
  if (q.format === 'CONFIRM') return decision === 'APPROVED';
  return { decision };
}
