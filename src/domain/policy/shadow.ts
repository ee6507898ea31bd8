// How a SHADOW rule fared against what people decided (API.md §20): an ALLOW agrees with an
// unedited approval, a DENY with a rejection; an edited approval disagrees with ALLOW; a question
// still pending is pending; a timeout or a cancel is undecided. An ASK rule only adds scrutiny to
// a question a person was asked anyway, so it is never counted either way.
import { decisionOf, editedOf } from '../approval.ts';
import type { QuestionRecord } from '../question.ts';

export type ShadowVerdict = 'agreement' | 'disagreement' | 'pending' | 'undecided';

export interface ShadowReport {
  ruleId: string;
  agreements: number;
  disagreements: number;
  pending: number;
  undecided: number;
}

/** The verdict of rule `ruleId` on one question; null when the rule did not watch it (or is ASK). */
export function shadowVerdict(q: QuestionRecord, ruleId: string): ShadowVerdict | null {
  const entry = q.policyShadow?.find((s) => s.ruleId === ruleId);
  if (!entry || entry.effect === 'ASK') return null;
  if (q.status === 'PENDING') return 'pending';
  const decision = q.sensitive ? null : decisionOf(q);
  if (decision === null) return 'undecided';
  if (entry.effect === 'DENY') return decision === 'REJECTED' ? 'agreement' : 'disagreement';
  return decision === 'APPROVED' && editedOf(q) !== true ? 'agreement' : 'disagreement';
}

export function emptyShadowReport(ruleId: string): ShadowReport {
  return { ruleId, agreements: 0, disagreements: 0, pending: 0, undecided: 0 };
}

/** Adds one question to a report (in place). */
export function countShadow(report: ShadowReport, q: QuestionRecord): void {
  const verdict = shadowVerdict(q, report.ruleId);
  if (verdict === 'agreement') report.agreements++;
  else if (verdict === 'disagreement') report.disagreements++;
  else if (verdict === 'pending') report.pending++;
  else if (verdict === 'undecided') report.undecided++;
}
