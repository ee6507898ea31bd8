// The "Pending" tab: the connection banners, the filters, and the cards (single or folded by
// group) in a virtualized list: only the rows near the viewport are in the page, so the work per
// change follows what is on screen, not the backlog. The list is an ARIA feed: every row is an
// article with its place in the list, and Page Down / Page Up move between rows, bringing rows
// that were not rendered into the page first.
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import {
  type Dispatch,
  type KeyboardEvent,
  useCallback,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import {
  arrange,
  type Card,
  type Entry,
  type Facets,
  type Filter,
  facets,
  NO_FILTER,
  type SortOrder,
} from '../lib/arrange.ts';
import { type BatchProgress, runBatch } from '../lib/batch.ts';
import { type BatchDecision, batchAnswer, batchable } from '../lib/batch-select.ts';
import type { FeedStatus } from '../lib/feed.ts';
import type { InboxAction, InboxState } from '../lib/inbox-state.ts';
import type { Viewer } from '../lib/model.ts';
import { BatchBar } from './BatchBar.tsx';
import { FilterBar } from './FilterBar.tsx';
import { approvable, GroupHead } from './GroupHead.tsx';
import { QuestionCard, type Submit } from './QuestionCard.tsx';

type GroupEntry = Extract<Entry, { kind: 'group' }>;

type Row =
  | { kind: 'head'; key: string; entry: GroupEntry; open: boolean }
  | { kind: 'card'; key: string; card: Card; grouped: boolean };

/** The rows to render: each group's head, then its cards unless it is folded. */
function rowsOf(entries: readonly Entry[], folded: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  for (const e of entries) {
    if (e.kind === 'single') {
      rows.push({ kind: 'card', key: e.key, card: e.card, grouped: false });
      continue;
    }
    const open = !folded.has(e.key);
    rows.push({ kind: 'head', key: e.key, entry: e, open });
    if (open)
      for (const card of e.cards) rows.push({ kind: 'card', key: card.question.id, card, grouped: true });
  }
  return rows;
}

/** A card's typical height; rows are measured once rendered. */
const ESTIMATED_ROW_PX = 190;

export function PendingPanel({
  state,
  dispatch,
  status,
  problem,
  viewer,
  submit,
  hidden,
}: {
  state: InboxState;
  dispatch: Dispatch<InboxAction>;
  status: FeedStatus;
  problem: string | null;
  viewer: Viewer;
  submit: Submit;
  hidden: boolean;
}) {
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [order, setOrder] = useState<SortOrder>('newest');
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const [batches, setBatches] = useState<ReadonlyMap<string, BatchProgress>>(new Map());
  // Typing in the search box stays responsive; the list catches up when React has time.
  const shownFilter = useDeferredValue(filter);
  const { pending, settled, version } = state;
  // `version` says when `pending` (changed in place) changed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: version stands for pending's contents.
  const arranged = useMemo(
    () => arrange({ pending, settled }, shownFilter, order),
    [pending, version, settled, shownFilter, order],
  );
  // The previous facets, so that unchanged choices stay the same arrays (FilterBar is memoized).
  const lastFacets = useRef<Facets | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: version stands for pending's contents.
  const choices = useMemo(() => facets(pending, lastFacets.current), [pending, version]);
  lastFacets.current = choices;
  const rows = useMemo(() => rowsOf(arranged.entries, folded), [arranged, folded]);

  const dismiss = useCallback((id: string) => dispatch({ type: 'dismiss', id }), [dispatch]);
  const toggle = useCallback(
    (key: string) =>
      setFolded((prev) => {
        const next = new Set(prev);
        if (!next.delete(key)) next.add(key);
        return next;
      }),
    [],
  );
  const approveAll = useCallback(
    (entry: GroupEntry) => {
      const setProgress = (p: BatchProgress) => setBatches((prev) => new Map(prev).set(entry.key, p));
      void runBatch(
        approvable(entry),
        async (q) => {
          const result = await submit(q, true);
          if (!result.ok) dispatch({ type: 'failed', id: q.id, message: result.message });
          return result;
        },
        setProgress,
      );
    },
    [submit, dispatch],
  );

  // Cards picked for a batch decision; one that left the pending list drops out by itself.
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [selection, setSelection] = useState<{ progress: BatchProgress; decision: BatchDecision } | null>(
    null,
  );
  const onSelect = useCallback(
    (id: string, on: boolean) =>
      setPicked((prev) => {
        const next = new Set(prev);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      }),
    [],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: version stands for pending's contents.
  const chosen = useMemo(() => {
    const out = [];
    for (const id of picked) {
      const q = pending.get(id);
      if (q && !settled.has(id) && batchable(q)) out.push(q);
    }
    return out;
  }, [picked, pending, version, settled]);
  // The cards "Select all" picks: those in the list as filtered and unfolded, that may join a batch.
  const selectableIds = useMemo(() => {
    const out: string[] = [];
    for (const row of rows)
      if (row.kind === 'card' && !row.card.settled && batchable(row.card.question))
        out.push(row.card.question.id);
    return out;
  }, [rows]);
  const decideSelected = useCallback(
    (decision: BatchDecision) => {
      const batch = chosen;
      setPicked(new Set());
      void runBatch(
        batch,
        async (q) => {
          const result = await submit(q, batchAnswer(q, decision));
          if (!result.ok) dispatch({ type: 'failed', id: q.id, message: result.message });
          return result;
        },
        (progress) => setSelection({ progress, decision }),
      );
    },
    [chosen, submit, dispatch],
  );

  const list = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const measure = () => setScrollMargin(el.getBoundingClientRect().top + window.scrollY);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);
  // A new function would make the virtualizer recompute every row's place on each render.
  const getItemKey = useCallback((i: number) => rows[i]?.key ?? i, [rows]);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 6,
    scrollMargin,
    getItemKey,
  });

  // Page Down / Page Up: the row to focus once it is rendered.
  const focusAfterRender = useRef<number | null>(null);
  useEffect(() => {
    const index = focusAfterRender.current;
    if (index === null) return;
    const target = list.current?.querySelector<HTMLElement>(`[data-index="${index}"] > article`);
    if (target) {
      focusAfterRender.current = null;
      target.focus();
    }
  });
  const onListKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key !== 'PageDown' && e.key !== 'PageUp') return;
    const row = (e.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (!row) return;
    const next = Number(row.dataset.index) + (e.key === 'PageDown' ? 1 : -1);
    if (next < 0 || next >= rows.length) return;
    e.preventDefault();
    focusAfterRender.current = next;
    virtualizer.scrollToIndex(next, { align: 'start' });
    const target = list.current?.querySelector<HTMLElement>(`[data-index="${next}"] > article`);
    if (target) {
      focusAfterRender.current = null;
      target.focus();
    }
  };

  const settledCount = settled.size;
  const items = virtualizer.getVirtualItems();
  return (
    <section id="panel-pending" role="tabpanel" aria-labelledby="tab-pending" hidden={hidden}>
      <h2 className="visually-hidden">Pending questions</h2>
      {status === 'reconnecting' && (
        <p className="banner banner-warning" data-testid="reconnecting">
          The connection to the server was lost. Reconnecting… The list may be out of date until it is back.
        </p>
      )}
      {problem && (
        <p className="banner banner-danger" role="alert">
          The live feed reported a problem: {problem}
        </p>
      )}
      {state.synced && (pending.size > 0 || filter !== NO_FILTER) && (
        <FilterBar
          filter={filter}
          setFilter={setFilter}
          order={order}
          setOrder={setOrder}
          facets={choices}
          shown={arranged.shownPending}
          total={pending.size}
        />
      )}
      {!state.synced && status !== 'reconnecting' && <p className="empty">Loading questions…</p>}
      {state.loadingMore && (
        <p className="empty" role="status">
          Loading the rest of the pending questions…
        </p>
      )}
      {state.synced && rows.length === 0 && (
        <p className="empty">
          {pending.size > 0
            ? 'No pending question matches the filters.'
            : 'No pending questions. New ones appear here as soon as they are asked.'}
        </p>
      )}
      {settledCount > 0 && (
        <div className="actions end">
          <button type="button" className="quiet" onClick={() => dispatch({ type: 'dismiss-settled' })}>
            Clear {settledCount} resolved
          </button>
        </div>
      )}
      <div
        ref={list}
        role="feed"
        aria-label="Pending questions"
        aria-busy={!state.synced || state.loadingMore}
        className="feed"
        style={{ height: virtualizer.getTotalSize() }}
        onKeyDown={onListKey}
      >
        {items.map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className={row.kind === 'card' && row.grouped ? 'feed-row feed-row-grouped' : 'feed-row'}
              style={{ transform: `translateY(${item.start - scrollMargin}px)` }}
            >
              {row.kind === 'head' ? (
                <GroupHead
                  entry={row.entry}
                  open={row.open}
                  toggle={toggle}
                  batch={batches.get(row.key)}
                  approveAll={approveAll}
                  position={item.index + 1}
                  setSize={rows.length}
                />
              ) : (
                <QuestionCard
                  card={row.card}
                  viewer={viewer}
                  submit={submit}
                  dismiss={dismiss}
                  showGroup={!row.grouped}
                  failure={state.failures.get(row.card.question.id)}
                  position={item.index + 1}
                  setSize={rows.length}
                  selectable={batchable(row.card.question)}
                  selected={picked.has(row.card.question.id)}
                  onSelect={onSelect}
                />
              )}
            </div>
          );
        })}
      </div>
      <BatchBar
        count={chosen.length}
        progress={selection?.progress ?? null}
        decision={selection?.decision ?? null}
        decide={decideSelected}
        selectable={selectableIds.length}
        selectAll={() => setPicked(new Set(selectableIds))}
        clear={() => setPicked(new Set())}
      />
    </section>
  );
}
