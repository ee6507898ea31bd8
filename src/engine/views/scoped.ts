// Reads confined to a principal's scope when it spans several audiences: a restricted member of
// groups sees its own id's questions and its groups' (API.md §22). The store indexes one
// audience at a time, so each audience is read on its own and the pages are merged here, in
// the store's newest-first order with its cursors (a cursor is a position, valid in any index).
// The audiences are disjoint (a question has one), so the counts add up.
import type { VisibilityScope } from '../../domain/access.ts';
import { compareOldestFirst, encodeCursor } from '../../store/listing.ts';
import type { ListFilter, Page, PageRequest, QuestionStore } from '../../store/types.ts';

/** The store filters `filter` becomes within `scope` (none: nothing can match). */
export function scopedFilters(filter: ListFilter, scope: VisibilityScope): ListFilter[] {
  const { audiences, routed: _routed, ...one } = scope;
  if (!audiences) {
    if (one.audience && filter.audience != null && filter.audience !== one.audience) return [];
    return [{ ...filter, ...one }];
  }
  const wanted = filter.audience != null ? audiences.filter((a) => a === filter.audience) : audiences;
  return wanted.map((audience) => ({ ...filter, ...one, audience }));
}

export async function listScoped(
  store: QuestionStore,
  filters: ListFilter[],
  page: PageRequest,
): Promise<Page> {
  if (filters.length === 0) return { items: [], totalCount: 0, hasNextPage: false, endCursor: null };
  if (filters.length === 1) return store.list(filters[0]!, page);
  const pages = await Promise.all(filters.map((f) => store.list(f, page)));
  const merged = pages
    .flatMap((p) => p.items)
    .sort((a, b) =>
      compareOldestFirst({ createdAt: b.createdAt, id: b.id }, { createdAt: a.createdAt, id: a.id }),
    );
  const items = merged.slice(0, page.first);
  const last = items.at(-1);
  return {
    items,
    totalCount: pages.reduce((n, p) => n + p.totalCount, 0),
    hasNextPage: merged.length > items.length || pages.some((p) => p.hasNextPage),
    endCursor: last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

/**
 * A delegate's handed-on on-call questions (`scope.routed`) as exact store filters, for the paged
 * listing: one per rotation and person it acts for, read from the store's `routedTo` index so
 * counts stay honest. Disjoint from `scopedFilters`' (visibilityScope leaves out the rotations
 * already among `audiences`) and from each other (a question has one audience and one routedTo).
 */
export function routedListFilters(filter: ListFilter, scope: VisibilityScope): ListFilter[] {
  const routed = scope.routed;
  if (!routed) return [];
  const audiences =
    filter.audience != null ? routed.audiences.filter((a) => a === filter.audience) : routed.audiences;
  return audiences.flatMap((audience) =>
    routed.people.map((routedTo) => ({ ...filter, audience, routedTo })),
  );
}

/** A delegate's rotations (`scope.routed`): read whole, kept when routed to one it acts for. */
function routedFilters(scope: VisibilityScope): ListFilter[] {
  return (scope.routed?.audiences ?? []).map((audience) => ({ audience }));
}

export async function pendingScoped(store: QuestionStore, scope: VisibilityScope) {
  const filters = scopedFilters({}, scope);
  const extra = routedFilters(scope);
  const [lists, routed] = await Promise.all([
    Promise.all(filters.map((f) => store.pending(f))),
    Promise.all(extra.map((f) => store.pending(f))),
  ]);
  const people = scope.routed?.people ?? [];
  const mine = routed.flat().filter((q) => q.routedTo != null && people.includes(q.routedTo));
  return [...lists.flat(), ...mine].sort((a, b) => compareOldestFirst(a, b));
}

/**
 * The ids of the pending questions in `scope`; with `scope.routed`, a superset the reader must
 * check each record of with `canSee` (readBacklog does).
 */
export async function pendingIdsScoped(store: QuestionStore, scope: VisibilityScope): Promise<string[]> {
  const filters = [...scopedFilters({}, scope), ...routedFilters(scope)];
  if (filters.length === 1) return store.pendingIds(filters[0]!);
  return (await Promise.all(filters.map((f) => store.pendingIds(f)))).flat();
}
