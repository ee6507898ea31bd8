// The signed-in page: the live pending list (folded by group, newest first) and the history.
import { type KeyboardEvent, useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { InboxApi } from './components/ClaimBadge.tsx';
import { History } from './components/History.tsx';
import { PasskeySettings } from './components/PasskeySettings.tsx';
import { PendingPanel } from './components/PendingPanel.tsx';
import { PeopleSettingsMenu } from './components/PeopleSettings.tsx';
import { PushSettings } from './components/PushSettings.tsx';
import { SettingsMenu } from './components/SettingsMenu.tsx';
import { ShortcutHelp } from './components/ShortcutHelp.tsx';
import { StatsPanel } from './components/StatsPanel.tsx';
import { useFeed } from './components/use-feed.ts';
import { useShortcuts } from './components/use-shortcuts.ts';
import { useSubmit } from './components/use-submit.ts';
import type { Transport } from './lib/api.ts';
import type { FeedStatus } from './lib/feed.ts';
import type { FeedSession } from './lib/feed-session.ts';
import type { Viewer } from './lib/model.ts';
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
  viewer,
  api,
  signedIn,
  onSignOut,
}: {
  status: FeedStatus;
  viewer: Viewer;
  api: Transport;
  /** Signed in through the identity provider (a person, who may register a passkey). */
  signedIn: boolean;
  onSignOut(message: string | null): void;
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
      <SettingsMenu>
        <p className="who">
          Signed in as <strong title={viewer.id}>{viewer.name ?? viewer.id}</strong>
        </p>
        <PushSettings api={api} />
        {signedIn && <PasskeySettings api={api} />}
        <PeopleSettingsMenu api={api} />
        <button type="button" className="quiet" onClick={() => onSignOut(null)}>
          Sign out
        </button>
      </SettingsMenu>
    </header>
  );
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
  const [help, setHelp] = useState(false);
  const toggleHelp = useCallback(() => setHelp((open) => !open), []);
  useShortcuts({ active: view === 'pending' && !help, toggleHelp });
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
        <TopBar status={status} viewer={viewer} api={api} signedIn={apiKey === null} onSignOut={onSignOut} />
        <main>
          <Tabs
            views={canReadStats(viewer) ? ['pending', 'history', 'stats'] : ['pending', 'history']}
            view={view}
            setView={setView}
            pendingCount={state.synced ? pendingCount : null}
          />
          <PendingPanel
            state={state}
            dispatch={dispatch}
            status={status}
            problem={problem}
            viewer={viewer}
            submit={submit}
            hidden={view !== 'pending'}
          />
          {view === 'history' && (
            <section id="panel-history" role="tabpanel" aria-labelledby="tab-history">
              <History api={api} viewer={viewer} refreshKey={state.resolutions} onUnauthorized={refused} />
            </section>
          )}
          {view === 'stats' && (
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
