// The signed-in page: the live pending list (folded by group, newest first) and the history.
import {
  type KeyboardEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useReducer,
  useRef,
  useState,
} from 'react';
import { InboxAnswerDocument, InboxQuestionDocument } from '../client/generated/graphql.ts';
import { History } from './components/History.tsx';
import { plainId } from './components/hooks.ts';
import { QuestionCard, type Submit } from './components/QuestionCard.tsx';
import { answerPath } from './lib/answer-path.ts';
import { answerErrorMessage, conflictMessage, conflictOutcome } from './lib/answers.ts';
import { isApiError, request } from './lib/api.ts';
import { type FeedStatus, openFeed } from './lib/feed.ts';
import { arrange, type Entry, inboxReducer, initialInboxState } from './lib/inbox-state.ts';
import type { Question, Viewer } from './lib/model.ts';

type View = 'pending' | 'history';

const STATUS_TEXT: Record<FeedStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
};

function GroupSection({
  entry,
  children,
}: {
  entry: Extract<Entry, { kind: 'group' }>;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(true);
  const id = plainId(entry.key);
  const all = entry.cards.length;
  return (
    <section className="group" aria-labelledby={`${id}-head`} data-group-id={entry.groupId}>
      <h3 className="group-head" id={`${id}-head`}>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={`${id}-body`}
          onClick={() => setOpen(!open)}
        >
          <span className="chevron" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <span className="group-name">{entry.groupId}</span>
          <span className="badge">
            {entry.pendingCount === 0 ? 'none pending' : `${entry.pendingCount} of ${all} pending`}
          </span>
        </button>
      </h3>
      <div className="group-body cards" id={`${id}-body`} hidden={!open}>
        {children}
      </div>
    </section>
  );
}

export function Inbox({
  apiKey,
  viewer,
  onSignOut,
}: {
  apiKey: string;
  viewer: Viewer;
  /** Back to sign-in; with a message when the key was refused. */
  onSignOut(message: string | null): void;
}) {
  const [state, dispatch] = useReducer(inboxReducer, initialInboxState);
  const [status, setStatus] = useState<FeedStatus>('connecting');
  const [problem, setProblem] = useState<string | null>(null);
  const [view, setView] = useState<View>('pending');
  const tabs = useRef<Record<View, HTMLButtonElement | null>>({ pending: null, history: null });

  const refused = useCallback(
    () => onSignOut('Your API key was refused (401). Sign in again with a valid key.'),
    [onSignOut],
  );

  useEffect(
    () =>
      openFeed(
        { key: apiKey },
        {
          event: (event) => dispatch({ type: 'feed', event }),
          status: setStatus,
          unauthorized: refused,
          problem: setProblem,
        },
      ),
    [apiKey, refused],
  );

  const pendingCount = state.pending.size;
  useEffect(() => {
    document.title =
      pendingCount > 0 ? `(${pendingCount}) Inbox · tai-interactions` : 'Inbox · tai-interactions';
  }, [pendingCount]);

  const submit: Submit = useCallback(
    async (q: Question, answer: unknown) => {
      try {
        const data = await request(InboxAnswerDocument, { id: q.id, answer }, { key: apiKey });
        dispatch({ type: 'answered-here', question: data.answer });
        return { ok: true };
      } catch (err) {
        if (!isApiError(err)) return { ok: false, message: 'Something went wrong: try again.' };
        if (err.kind === 'unauthenticated') {
          refused();
          return { ok: false, message: err.message };
        }
        if (err.code === 'ALREADY_ANSWERED' || err.code === 'QUESTION_CLOSED') {
          let now: Question | null = null;
          try {
            now = (await request(InboxQuestionDocument, { id: q.id }, { key: apiKey })).question;
          } catch {
            // the code alone still says enough
          }
          const note = conflictMessage(err.code, now);
          dispatch({
            type: 'closed-elsewhere',
            question: now ?? q,
            outcome: conflictOutcome(err.code, now),
            note,
          });
          return { ok: false, message: note };
        }
        const path = err.code === 'BAD_USER_INPUT' && q.format === 'FORM' ? answerPath(err.field) : null;
        if (path !== null && path.length > 0) {
          return {
            ok: false,
            message: 'The answer was refused: see the field marked below.',
            serverError: { message: err.message, field: err.field },
          };
        }
        return { ok: false, message: answerErrorMessage(err) };
      }
    },
    [apiKey, refused],
  );

  const dismiss = useCallback((id: string) => dispatch({ type: 'dismiss', id }), []);

  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>): void => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight' && e.key !== 'Home' && e.key !== 'End') return;
    e.preventDefault();
    const next: View =
      e.key === 'Home' ? 'pending' : e.key === 'End' ? 'history' : view === 'pending' ? 'history' : 'pending';
    setView(next);
    tabs.current[next]?.focus();
  };

  const entries = arrange(state);
  const settledCount = state.settled.size;

  return (
    <div className="page">
      <header className="topbar">
        <div className="brand">
          <h1>Inbox</h1>
          <span className="product">tai-interactions</span>
        </div>
        <p
          className={`feed-status feed-${status}`}
          role="status"
          data-testid="feed-status"
          data-state={status}
        >
          <span className="dot" aria-hidden="true" />
          {STATUS_TEXT[status]}
        </p>
        <div className="who">
          <span>
            Signed in as <strong>{viewer.id}</strong>
          </span>
          <button type="button" className="quiet" onClick={() => onSignOut(null)}>
            Sign out
          </button>
        </div>
      </header>

      <main>
        <div className="tabs" role="tablist" aria-label="Inbox views">
          {(['pending', 'history'] as const).map((v) => (
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
              {v === 'pending' ? 'Pending' : 'History'}
              {v === 'pending' && state.synced && <span className="count">{pendingCount}</span>}
            </button>
          ))}
        </div>

        <section id="panel-pending" role="tabpanel" aria-labelledby="tab-pending" hidden={view !== 'pending'}>
          <h2 className="visually-hidden">Pending questions</h2>
          {status === 'reconnecting' && (
            <p className="banner banner-warning" data-testid="reconnecting">
              The connection to the server was lost. Reconnecting… The list may be out of date until it is
              back.
            </p>
          )}
          {problem && (
            <p className="banner banner-danger" role="alert">
              The live feed reported a problem: {problem}
            </p>
          )}
          {!state.synced && status !== 'reconnecting' && <p className="empty">Loading questions…</p>}
          {state.synced && entries.length === 0 && (
            <p className="empty">No pending questions. New ones appear here as soon as they are asked.</p>
          )}
          {settledCount > 0 && (
            <div className="actions end">
              <button type="button" className="quiet" onClick={() => dispatch({ type: 'dismiss-settled' })}>
                Clear {settledCount} resolved
              </button>
            </div>
          )}
          <div className="cards">
            {entries.map((entry) =>
              entry.kind === 'single' ? (
                <QuestionCard
                  key={entry.key}
                  card={entry.card}
                  viewer={viewer}
                  submit={submit}
                  dismiss={dismiss}
                  showGroup
                />
              ) : (
                <GroupSection key={entry.key} entry={entry}>
                  {entry.cards.map((card) => (
                    <QuestionCard
                      key={card.question.id}
                      card={card}
                      viewer={viewer}
                      submit={submit}
                      dismiss={dismiss}
                      showGroup={false}
                    />
                  ))}
                </GroupSection>
              ),
            )}
          </div>
        </section>

        {view === 'history' && (
          <section id="panel-history" role="tabpanel" aria-labelledby="tab-history">
            <History
              apiKey={apiKey}
              viewer={viewer}
              refreshKey={state.resolutions}
              onUnauthorized={refused}
            />
          </section>
        )}
      </main>
      <div className="visually-hidden" aria-live="polite" aria-atomic="true">
        {state.announcement.text}
      </div>
    </div>
  );
}
