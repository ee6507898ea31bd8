// The signed-in page: the live pending list (folded by group, newest first), the history, the
// stats, and the settings page (from the top bar's Settings button, or the address `#settings`).
import {
  type KeyboardEvent,
  type RefObject,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { InboxActingForDocument } from '../client/generated/graphql.ts';
import { InboxApi } from './components/ClaimBadge.tsx';
import { History } from './components/History.tsx';
import { PendingPanel } from './components/PendingPanel.tsx';
import { SettingsPage } from './components/SettingsPage.tsx';
import { ShortcutHelp } from './components/ShortcutHelp.tsx';
import { StatsPanel } from './components/StatsPanel.tsx';
import { useFeed } from './components/use-feed.ts';
import { useShortcuts } from './components/use-shortcuts.ts';
import { useSubmit } from './components/use-submit.ts';
import type { FeedStatus } from './lib/feed.ts';
import type { FeedSession } from './lib/feed-session.ts';
import type { Viewer } from './lib/model.ts';
import { isSettingsHash, withSettings } from './lib/settings-route.ts';
import { canReadStats } from './lib/stats.ts';

type View = 'pending' | 'history' | 'stats';

const VIEW_LABEL: Record<View, string> = { pending: 'Pending', history: 'History', stats: 'Stats' };

const STATUS_TEXT: Record<FeedStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
};

function TopBar({
  status,
  settingsOpen,
  toggleSettings,
  toggleRef,
}: {
  status: FeedStatus;
  settingsOpen: boolean;
  toggleSettings(): void;
  toggleRef: RefObject<HTMLButtonElement | null>;
}) {
  return (
    <header className="topbar">
      <div className="brand">
        <h1>Inbox</h1>
        <span className="product">tai-interactions</span>
      </div>
      <p className={`feed-status feed-${status}`} role="status" data-testid="feed-status" data-state={status}>
        <span className="dot" aria-hidden="true" />
        {STATUS_TEXT[status]}
      </p>
      <button
        ref={toggleRef}
        type="button"
        className="quiet settings-toggle"
        aria-pressed={settingsOpen}
        aria-controls={settingsOpen ? 'panel-settings' : undefined}
        onClick={toggleSettings}
      >
        Settings
      </button>
    </header>
  );
}

/**
 * Whether the settings page is open, kept in the address's fragment: the Back button and a
 * bookmark of `#settings` work. Opening adds a history entry; closing goes back to it when this
 * page added it, and otherwise just drops `settings` from the fragment.
 */
function useSettingsRoute(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(() => isSettingsHash(window.location.hash));
  useEffect(() => {
    const sync = (): void => setOpen(isSettingsHash(window.location.hash));
    window.addEventListener('popstate', sync);
    window.addEventListener('hashchange', sync);
    return () => {
      window.removeEventListener('popstate', sync);
      window.removeEventListener('hashchange', sync);
    };
  }, []);
  const set = useCallback((next: boolean) => {
    const { pathname, search, hash } = window.location;
    if (next === isSettingsHash(hash)) return setOpen(next);
    const rest = withSettings(hash, next);
    const url = `${pathname}${search}${rest ? `#${rest}` : ''}`;
    if (next) window.history.pushState({ settings: true }, '', url);
    else if ((window.history.state as { settings?: boolean } | null)?.settings) window.history.back();
    else window.history.replaceState(window.history.state, '', url);
    setOpen(next);
  }, []);
  return [open, set];
}

/** Whose questions the viewer receives while they are away (for the cards' "for <name>"). */
function useActingFor(api: FeedSession['api'], refresh: unknown): readonly string[] {
  const [actingFor, setActingFor] = useState<readonly string[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when `refresh` changes.
  useEffect(() => {
    let live = true;
    api.request(InboxActingForDocument, {}).then(
      (d) => {
        if (!live) return;
        setActingFor((was) => (was.join('\n') === d.viewer.actingFor.join('\n') ? was : d.viewer.actingFor));
      },
      () => {
        // The badge is a courtesy: the feed's own errors say what is wrong with the connection.
      },
    );
    return () => {
      live = false;
    };
  }, [api, refresh]);
  return actingFor;
}

/** The Pending / History tabs, with arrow-key, Home and End navigation. */
function Tabs({
  views,
  view,
  setView,
  pendingCount,
}: {
  /** The tabs shown (Stats only for those who may read it). */
  views: readonly View[];
  view: View;
  setView(view: View): void;
  /** Shown once the first SNAPSHOT arrived. */
  pendingCount: number | null;
}) {
  const tabs = useRef<Record<View, HTMLButtonElement | null>>({ pending: null, history: null, stats: null });
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>): void => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight' && e.key !== 'Home' && e.key !== 'End') return;
    e.preventDefault();
    const at = views.indexOf(view);
    const step = e.key === 'ArrowLeft' ? at - 1 + views.length : at + 1;
    const next = e.key === 'Home' ? views[0]! : e.key === 'End' ? views.at(-1)! : views[step % views.length]!;
    setView(next);
    tabs.current[next]?.focus();
  };
  return (
    <div className="tabs" role="tablist" aria-label="Inbox views">
      {views.map((v) => (
        <button
          key={v}
          ref={(el) => {
            tabs.current[v] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${v}`}
          aria-selected={view === v}
          aria-controls={`panel-${v}`}
          tabIndex={view === v ? 0 : -1}
          onClick={() => setView(v)}
          onKeyDown={onTabKey}
        >
          {VIEW_LABEL[v]}
          {v === 'pending' && pendingCount !== null && <span className="count">{pendingCount}</span>}
        </button>
      ))}
    </div>
  );
}

export function Inbox({
  apiKey,
  feed,
  viewer,
  onSignOut,
}: {
  /** Null: signed in through the identity provider (the session cookie). */
  apiKey: string | null;
  /** The key's feed and inbox state (sign-in may have opened the feed already). */
  feed: FeedSession;
  viewer: Viewer;
  /** Back to sign-in; with a message when the key was refused. */
  onSignOut(message: string | null): void;
}) {
  const { store, api } = feed;
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const dispatch = store.dispatch;
  const [view, setView] = useState<View>('pending');
  const [settingsOpen, setSettingsOpen] = useSettingsRoute();
  const settingsToggle = useRef<HTMLButtonElement | null>(null);
  const [help, setHelp] = useState(false);
  const toggleHelp = useCallback(() => setHelp((open) => !open), []);
  useShortcuts({ active: view === 'pending' && !settingsOpen && !help, toggleHelp });
  // Read when the page opens and again after the settings page closes (a delegation may have
  // changed there), not per feed event.
  const actingFor = useActingFor(api, settingsOpen);
  const cardViewer = useMemo(() => ({ ...viewer, actingFor }), [viewer, actingFor]);
  const refused = useCallback(
    () =>
      onSignOut(
        apiKey === null
          ? 'Your session has ended. Sign in again.'
          : 'Your API key was refused (401). Sign in again with a valid key.',
      ),
    [onSignOut, apiKey],
  );
  const { status, problem } = useFeed(feed, refused);
  const submit = useSubmit({ api, dispatch, refused });

  const pendingCount = state.pending.size;
  useEffect(() => {
    document.title =
      pendingCount > 0 ? `(${pendingCount}) Inbox · tai-interactions` : 'Inbox · tai-interactions';
  }, [pendingCount]);

  return (
    <InboxApi.Provider value={api}>
      <div className="page">
        <TopBar
          status={status}
          settingsOpen={settingsOpen}
          toggleSettings={() => setSettingsOpen(!settingsOpen)}
          toggleRef={settingsToggle}
        />
        <main>
          {settingsOpen && (
            <SettingsPage
              api={api}
              viewer={viewer}
              signedIn={apiKey === null}
              onSignOut={onSignOut}
              onClose={() => {
                setSettingsOpen(false);
                // Its button leaves with the page: focus goes back to where the page was opened.
                settingsToggle.current?.focus();
              }}
            />
          )}
          {!settingsOpen && (
            <Tabs
              views={canReadStats(viewer) ? ['pending', 'history', 'stats'] : ['pending', 'history']}
              view={view}
              setView={setView}
              pendingCount={state.synced ? pendingCount : null}
            />
          )}
          {/* Kept in the page while hidden: its scroll place and the feed's cards stay. */}
          <PendingPanel
            state={state}
            dispatch={dispatch}
            status={status}
            problem={problem}
            viewer={cardViewer}
            submit={submit}
            hidden={settingsOpen || view !== 'pending'}
          />
          {!settingsOpen && view === 'history' && (
            <section id="panel-history" role="tabpanel" aria-labelledby="tab-history">
              <History api={api} viewer={viewer} refreshKey={state.resolutions} onUnauthorized={refused} />
            </section>
          )}
          {!settingsOpen && view === 'stats' && (
            <section id="panel-stats" role="tabpanel" aria-labelledby="tab-stats">
              <StatsPanel api={api} onUnauthorized={refused} />
            </section>
          )}
        </main>
        {help && <ShortcutHelp onClose={() => setHelp(false)} />}
        <div className="visually-hidden" aria-live="polite" aria-atomic="true">
          {state.announcement.text}
        </div>
      </div>
    </InboxApi.Provider>
  );
}
