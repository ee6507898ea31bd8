// The "Pending" tab: the connection banners, the cards (single or folded by group) and the button
// that clears resolved cards.
import { type Dispatch, useCallback } from 'react';
import type { FeedStatus } from '../lib/feed.ts';
import { arrange, type InboxAction, type InboxState } from '../lib/inbox-state.ts';
import type { Viewer } from '../lib/model.ts';
import { GroupSection } from './GroupSection.tsx';
import { QuestionCard, type Submit } from './QuestionCard.tsx';

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
  const entries = arrange(state);
  const settledCount = state.settled.size;
  const dismiss = useCallback((id: string) => dispatch({ type: 'dismiss', id }), [dispatch]);
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
  );
}
