// Reads: one question, a page of them, the pending backlog. Each is confined to what the
// principal may see before anything is counted or paged.
import { visibilityScope } from '../../domain/access.ts';
import { filterOf, pageSizeOf } from '../../domain/call-args.ts';
import { DomainError } from '../../domain/errors.ts';
import { encodeCursor } from '../../store/listing.ts';
import type { ListFilter, Page } from '../../store/types.ts';
import type { EngineContext } from '../context.ts';
import type { Presence } from '../people/presence.ts';
import type { Interactions, QuestionPage } from '../types.ts';
import { readBacklog } from './backlog.ts';
import { listScoped, pendingScoped, routedListFilters, scopedFilters } from './scoped.ts';

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

/** `acting`: whom a restricted person acts for now (presence.acting), so a delegate pages theirs too. */
export function createListing(
  ctx: EngineContext,
  acting: Presence['acting'],
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
      // A restricted delegate pages through the questions of the people it acts for too (API.md
      // §22), as its feed shows them: each carries its `audience`, the person it is for (or, on
      // call, `routedTo`). Only a delegate has `scope.routed`: no one else reads more here.
      const scope = visibilityScope(await acting(p));
      const empty: QuestionPage = { edges: [], totalCount: 0, hasNextPage: false, endCursor: null };
      if (scope === 'none') return empty;
      const filters = scope.routed
        ? [...scopedFilters(filter, scope), ...routedListFilters(filter, scope)]
        : scopedFilters(filter, scope);
      return pageOf(await listScoped(store, filters, { first, after: page.after ?? null }));
    },

    async pending(p) {
      const scope = visibilityScope(p);
      return scope === 'none' ? [] : pendingScoped(store, scope);
    },

    backlog: (p, budgetBytes) => readBacklog(store, p, budgetBytes, ctx.announced.get),
  };
}
