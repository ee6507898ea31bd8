// QuestionFilter: narrows the questions list (applied before paging, so counts are honest).
import { builder } from '../builder.ts';
import { QuestionStatus } from './enums.ts';

export const QuestionFilter = builder.inputType('QuestionFilter', {
  description: 'Which questions to list. Every given condition must hold.',
  fields: (t) => ({
    status: t.field({
      type: [QuestionStatus],
      description: 'Any of these statuses; every status when omitted or empty.',
    }),
    groupId: t.string({ description: 'Only questions with this groupId.' }),
    audience: t.string({ description: 'Only questions addressed to this principal id.' }),
    channel: t.string({ description: 'Only questions delivered through this channel.' }),
  }),
});
