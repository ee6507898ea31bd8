// PageInfo: whether more results follow and where to continue.
import type { Page } from '../../store/types.ts';
import { builder } from '../builder.ts';

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
