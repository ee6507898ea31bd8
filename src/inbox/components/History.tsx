// Resolved questions, newest first: what was asked, what became of it, who answered and when, and
// the answer (never for sensitive questions: the server does not keep it).
import { useCallback, useEffect, useRef, useState } from 'react';
import { InboxHistoryDocument } from '../../client/generated/graphql.ts';
import { externalPayloadHead, OUTCOME_LABEL } from '../lib/answers.ts';
import { failureText, isRefusedKey, type Transport } from '../lib/api.ts';
import { executionLine } from '../lib/execution-line.ts';
import type { Question, Viewer } from '../lib/model.ts';
import { timeOf } from '../lib/model.ts';
import { answererText } from '../lib/names.ts';
import { formatWhen } from '../lib/time.ts';
import { AnswerView } from './AnswerView.tsx';
import { ApprovalStory } from './ApprovalStory.tsx';
import { Badges } from './QuestionCard.tsx';

const PAGE_SIZE = 50;

interface Page {
  items: Question[];
  total: number;
  endCursor: string | null;
  hasNextPage: boolean;
}

/**
 * What an EXTERNAL callback delivered: its payload (a JSON body, or the query parameters), field
 * by field, and whether the provider's signature was checked. Nothing is inferred beyond that.
 */
function ExternalPayload({ question: q }: { question: Question }) {
  const { head, empty } = externalPayloadHead(q);
  return (
    <div className="external-payload" data-testid="external-payload">
      <p className="payload-head">{head}</p>
      {empty ? <p className="answer-value hint">An empty payload.</p> : <AnswerView question={q} />}
    </div>
  );
}

function HistoryItem({ question: q, viewer, api }: { question: Question; viewer: Viewer; api: Transport }) {
  const outcome = q.status === 'PENDING' ? 'CLOSED' : q.status;
  let who = '';
  if (q.status === 'ANSWERED') {
    const by = answererText(q, viewer, 'someone');
    who = `by ${by} · ${formatWhen(timeOf(q.answeredAt))}`;
  } else if (q.status === 'TIMED_OUT') {
    who = `nobody answered in time · ${formatWhen(timeOf(q.closedAt))}`;
  } else if (q.status === 'CANCELLED') {
    who = [q.cancelReason, formatWhen(timeOf(q.closedAt))].filter(Boolean).join(' · ');
  }
  return (
    <article className="card history-item" data-question-id={q.id} data-status={q.status}>
      <div className="card-head">
        <Badges question={q} viewer={viewer} showGroup />
        <p className="deadline">
          asked <time dateTime={q.createdAt}>{formatWhen(timeOf(q.createdAt))}</time>
        </p>
      </div>
      <p className="q-text">{q.text}</p>
      <p className="outcome-line">
        <span className={`badge outcome-badge outcome-${outcome.toLowerCase()}`}>
          {OUTCOME_LABEL[outcome]}
        </span>{' '}
        {who}
      </p>
      {executionLine(q) && (
        <p className="execution-line" data-testid="execution-line">
          {executionLine(q)}
        </p>
      )}
      {q.status === 'ANSWERED' &&
        (q.format === 'EXTERNAL' ? (
          <ExternalPayload question={q} />
        ) : q.format === 'APPROVAL' && q.action && !q.sensitive ? (
          <ApprovalStory question={q} api={api} />
        ) : (
          <AnswerView question={q} />
        ))}
    </article>
  );
}

export function History({
  api,
  viewer,
  refreshKey,
  onUnauthorized,
}: {
  api: Transport;
  viewer: Viewer;
  /** Changes whenever a question resolves: the first page is read again. */
  refreshKey: number;
  onUnauthorized(): void;
}) {
  const [page, setPage] = useState<Page | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);

  const load = useCallback(
    async (after: string | null) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(null);
      try {
        const data = await api.request(InboxHistoryDocument, { first: PAGE_SIZE, after });
        if (mine !== generation.current) return;
        const items = data.questions.edges.map((e) => e.node);
        setPage((prev) => ({
          items:
            after && prev
              ? [...prev.items, ...items.filter((q) => !prev.items.some((p) => p.id === q.id))]
              : items,
          total: data.questions.totalCount,
          endCursor: data.questions.pageInfo.endCursor,
          hasNextPage: data.questions.pageInfo.hasNextPage,
        }));
      } catch (err) {
        if (mine !== generation.current) return;
        if (isRefusedKey(err)) {
          onUnauthorized();
          return;
        }
        setError(failureText(err, 'The history could not be read.'));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [api, onUnauthorized],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the trigger, not an input
  useEffect(() => {
    void load(null);
  }, [load, refreshKey]);

  return (
    <div className="history" aria-busy={loading}>
      <div className="panel-head">
        <h2>History</h2>
        <p className="hint">
          {page
            ? `${page.total} resolved question${page.total === 1 ? '' : 's'}`
            : 'Answered, timed out and cancelled questions'}
        </p>
        <button type="button" className="quiet" onClick={() => void load(null)} disabled={loading}>
          Refresh
        </button>
      </div>
      {error && (
        <p className="card-error" role="alert">
          {error}
        </p>
      )}
      {page === null && loading && <p className="empty">Loading the history…</p>}
      {page && page.items.length === 0 && (
        <p className="empty" role="status">
          Nothing resolved yet: answered, timed out and cancelled questions appear here.
        </p>
      )}
      {page && page.items.length > 0 && (
        <div className="cards">
          {page.items.map((q) => (
            <HistoryItem key={q.id} question={q} viewer={viewer} api={api} />
          ))}
        </div>
      )}
      {page?.hasNextPage && (
        <div className="actions center">
          <button type="button" onClick={() => void load(page.endCursor)} disabled={loading}>
            {loading ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </div>
  );
}
