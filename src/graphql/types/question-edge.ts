// QuestionEdge: one question in a page, with the cursor that continues after it.
import type { QuestionEdge as QuestionEdgeShape } from '../../engine/types.ts';
import { builder } from '../builder.ts';
import { Question } from './question.ts';

export const QuestionEdge = builder.objectRef<QuestionEdgeShape>('QuestionEdge').implement({
  description: 'A question in a page of results.',
  fields: (t) => ({
    node: t.field({ type: Question, description: 'The question.', resolve: (e) => e.node }),
    cursor: t.exposeString('cursor', {
      description: 'Pass as `after` to continue with the questions that follow this one.',
    }),
  }),
});
