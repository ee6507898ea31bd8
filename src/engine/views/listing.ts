// Reads: one question, a page of them, the pending backlog. Each is confined to what the
// principal may see before anything is counted or paged.
import { visibilityScope } from '../../domain/access.ts';
import { filterOf, pageSizeOf } from '../../domain/call-args.ts';
import { DomainError } from '../../domain/errors.ts';
import { encodeCursor } from '../../store/listing.ts';
import type { ListFilter, Page } from '../../store/types.ts';
import type { EngineContext } from '../context.ts';
import type { Interactions, QuestionPage } from '../types.ts';
import { readBacklog } from './backlog.ts';

/** The store's page with a cursor on every question (the last one is the page's own end cursor). */
function pageOf(page: Page): QuestionPage {
  const last = page.items.length - 1;
  return {
    edges: page.items.map((node, i) => ({
      node,
      cursor:
        i === last && page.endCursor !== null
          ? page.endCursor
          : encodeCursor({ createdAt: node.createdAt, id: node.id }),
    })),
    totalCount: page.totalCount,
    hasNextPage: page.hasNextPage,
    endCursor: page.endCursor,
  };
}

export function createListing(
  ctx: EngineContext,
): Pick<Interactions, 'get' | 'list' | 'pending' | 'backlog'> {
  const { store } = ctx;
  return {
    async get(p, id) {
      try {
        return await ctx.visible(p, id);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'NOT_FOUND') return null;
        throw err;
      }
    },

    async list(p, rawFilter, page) {
      const first = pageSizeOf(page.first);
      const filter: ListFilter = filterOf(rawFilter);
      const scope = visibilityScope(p);
      const empty: QuestionPage = { edges: [], totalCount: 0, hasNextPage: false, endCursor: null };
      if (scope === 'none') return empty;
      if (scope.audience && filter.audience != null && filter.audience !== scope.audience) return empty;
      return pageOf(await store.list({ ...filter, ...scope }, { first, after: page.after ?? null }));
    },

    async pending(p) {
      const scope = visibilityScope(p);
      if (scope === 'none') return [];
      const own = await store.pending(scope);
      // A restricted delegate's too (API.md §22): the people it acts for, one audience each.
      if (!p.restricted || !p.actsFor?.length) return own;
      const theirs = await Promise.all(p.actsFor.map((audience) => store.pending({ audience })));
      return [...own, ...theirs.flat()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    },

    backlog: (p, budgetBytes) => readBacklog(store, p, budgetBytes, ctx.announced.get),
  };
}
