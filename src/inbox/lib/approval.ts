// An APPROVAL question's parts as the inbox shows them: the arguments as rows (JSON for nested
// values), which of them an edit changed, and the votes so far against the quorum.
import type { Question } from './model.ts';
import { isPlainObject } from './model.ts';

export interface ArgumentRow {
  name: string;
  /** The value as shown: a string as it is, anything else as JSON. */
  value: string;
  /** Only for an edit: the proposed value, when the edit changed it. */
  was?: string;
}

/** A value as an argument row shows it: a string as it is, anything else as JSON. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** The arguments as rows; with `edited`, each row shows the edited value and marks what changed. */
export function argumentRows(
  proposed: Record<string, unknown>,
  edited?: Record<string, unknown>,
): ArgumentRow[] {
  if (!edited) return Object.entries(proposed).map(([name, v]) => ({ name, value: shown(v) }));
  const names = [...new Set([...Object.keys(proposed), ...Object.keys(edited)])];
  return names.map((name) => {
    // A field emptied while editing holds `undefined`, which the answer's JSON leaves out.
    const before = proposed[name] !== undefined ? shown(proposed[name]) : '(not set)';
    const after = edited[name] !== undefined ? shown(edited[name]) : '(not set)';
    return after === before ? { name, value: after } : { name, value: after, was: before };
  });
}

/** Whether `edited` changes any argument of `proposed` (an edit that puts everything back does not). */
export function changesAny(proposed: Record<string, unknown>, edited: Record<string, unknown>): boolean {
  return argumentRows(proposed, edited).some((row) => row.was !== undefined);
}

/** "1 of 2 approvals · 0 of 1 rejections", or null without a quorum. */
export function quorumLine(q: Pick<Question, 'quorum' | 'votes'>): string | null {
  if (!q.quorum) return null;
  const approvals = q.votes.filter((v) => v.decision === 'APPROVED').length;
  const rejections = q.votes.length - approvals;
  return `${approvals} of ${q.quorum.approvals} approvals · ${rejections} of ${q.quorum.rejections} rejections`;
}

/** The approved arguments of an answer, when it carries them. */
export function approvedArguments(answer: unknown): Record<string, unknown> | null {
  return isPlainObject(answer) && isPlainObject(answer.arguments) ? answer.arguments : null;
}
