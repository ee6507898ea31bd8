// QuestionConnection: a page of questions, newest first, with an honest total.

import { encodeCursor } from '../../store/listing.ts';
import type { Page } from '../../store/types.ts';
import { builder } from '../builder.ts';
import { PageInfo } from './page-info.ts';
import { QuestionEdge, type QuestionEdgeShape } from './question-edge.ts';

function edgesOf(page: Page): QuestionEdgeShape[] {
  const last = page.items.length - 1;
  return page.items.map((node, i) => ({
    node,
    cursor:
      i === last && page.endCursor !== null
        ? page.endCursor
        : encodeCursor({ createdAt: node.createdAt, id: node.id }),
  }));
}

export const QuestionConnection = builder.objectRef<Page>('QuestionConnection').implement({
  description: 'A page of questions, newest first.',
  fields: (t) => ({
    edges: t.field({
      type: [QuestionEdge],
      description: 'The questions on this page, newest first.',
      resolve: edgesOf,
    }),
    pageInfo: t.field({ type: PageInfo, description: 'Where this page ends.', resolve: (p) => p }),
    totalCount: t.exposeInt('totalCount', {
      description: 'How many questions match the filter among those the caller may see, on all pages.',
    }),
  }),
});
