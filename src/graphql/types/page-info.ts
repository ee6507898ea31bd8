// PageInfo: whether more results follow and where to continue.
import type { QuestionPage } from '../../engine/types.ts';
import { builder } from '../builder.ts';

/** Any page the engine hands out (the audit log's will share it). */
type Page = Pick<QuestionPage, 'hasNextPage' | 'endCursor'>;

export const PageInfo = builder.objectRef<Page>('PageInfo').implement({
  description: 'Where a page of results ends.',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether more results follow this page.' }),
    endCursor: t.string({
      nullable: true,
      description: 'The cursor of the last result; pass as `after` for the next page. Null on an empty page.',
      resolve: (p) => p.endCursor,
    }),
  }),
});
