// The formats as the inbox names them: one label per format, keyed by the domain's one list, so a
// new format fails to compile here until it has a name, and every list in the page (the format
// filter, the badges) shows it.
import { ANSWER_FORMATS, type AnswerFormat } from '../../domain/question.ts';

export const FORMAT_LABEL: Record<AnswerFormat, string> = {
  TEXT: 'Text',
  CONFIRM: 'Yes / No',
  SELECT: 'Choice',
  FORM: 'Form',
  EXTERNAL: 'External',
  APPROVAL: 'Approval',
};

/** The format filter's choices, in the domain's order. */
export const FORMAT_CHOICES: readonly { value: AnswerFormat; label: string }[] = ANSWER_FORMATS.map(
  (value) => ({ value, label: FORMAT_LABEL[value] }),
);
