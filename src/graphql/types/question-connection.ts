// QuestionConnection: a page of questions, newest first, with an honest total.

import type { QuestionPage } from '../../engine/types.ts';
import { builder } from '../builder.ts';
import { PageInfo } from './page-info.ts';
import { QuestionEdge } from './question-edge.ts';

export const QuestionConnection = builder.objectRef<QuestionPage>('QuestionConnection').implement({
  description: 'A page of questions, newest first.',
  fields: (t) => ({
    edges: t.field({
      type: [QuestionEdge],
      description: 'The questions on this page, newest first.',
      resolve: (p) => p.edges,
    }),
    pageInfo: t.field({ type: PageInfo, description: 'Where this page ends.', resolve: (p) => p }),
    totalCount: t.exposeInt('totalCount', {
      description: 'How many questions match the filter among those the caller may see, on all pages.',
    }),
  }),
});
