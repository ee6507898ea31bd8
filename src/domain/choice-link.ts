// A choice link (API.md §9.1): a channel that cannot carry buttons (e-mail) sends one link per
// choice, `{callbackUrl}?choice=<n>`. The GET shows the confirm page with that choice selected and
// changes nothing (mail scanners open every link); the page's form posts `choice=<n>` back, and
// that POST answers. The index names one of the question's own choices, so the page shows the
// question's text for it, never anything taken from the request.
import type { QuestionSpec } from './question.ts';

/** What a choice depends on (`options` only for SELECT). */
export type ChoiceQuestion = Pick<QuestionSpec, 'format'> & { options?: readonly string[] | null };

export interface Choice {
  /** 1 = Yes and 0 = No for CONFIRM (Approve and Reject for APPROVAL); the option's index for SELECT. */
  index: number;
  label: string;
  /** APPROVAL: a decision without edits, so the proposed arguments stand (API.md §15). */
  answer: true | false | string | { decision: 'APPROVED' | 'REJECTED' };
}

/** The choices a link can carry, in the order a channel lists them. */
export function choicesOf(q: ChoiceQuestion): Choice[] {
  if (q.format === 'CONFIRM') {
    return [
      { index: 1, label: 'Yes', answer: true },
      { index: 0, label: 'No', answer: false },
    ];
  }
  if (q.format === 'APPROVAL') {
    return [
      { index: 1, label: 'Approve', answer: { decision: 'APPROVED' } },
      { index: 0, label: 'Reject', answer: { decision: 'REJECTED' } },
    ];
  }
  if (q.format === 'SELECT')
    return (q.options ?? []).map((label, index) => ({ index, label, answer: label }));
  return [];
}

/** The choice a `choice` parameter names, or null when it names none of this question's. */
export function choiceNamed(q: ChoiceQuestion, raw: string): Choice | null {
  if (!/^\d{1,4}$/.test(raw)) return null;
  const index = Number(raw);
  return choicesOf(q).find((c) => c.index === index) ?? null;
}
