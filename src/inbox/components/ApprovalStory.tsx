// An approval in the history (issue 44 item 4), told as a story: the decision ("Approved with
// changes"), who or what decided it (a person, a policy rule), the arguments with each changed
// one shown "changed from → to", the note, the votes, what became of the approved action (§23:
// "approved 10:02 · run 10:03 · succeeded") and the signed receipt one click away.
import { useState } from 'react';
import { ClientReceiptDocument } from '../../client/generated/graphql.ts';
import { failureText, type Transport } from '../lib/api.ts';
import type { Question } from '../lib/model.ts';
import { isPlainObject } from '../lib/model.ts';
import { ArgumentsTable } from './ArgumentsTable.tsx';

function decisionText(q: Question): string {
  if (q.decision === 'REJECTED') return 'Rejected';
  if (q.decision === 'APPROVED') return q.edited ? 'Approved with changes' : 'Approved';
  return 'Decided';
}

function Receipt({ api, id }: { api: Transport; id: string }) {
  const [state, setState] = useState<{ jws: string | null; error: string | null; loading: boolean }>({
    jws: null,
    error: null,
    loading: false,
  });
  const load = async (): Promise<void> => {
    setState({ jws: null, error: null, loading: true });
    try {
      const data = await api.request(ClientReceiptDocument, { id });
      setState({ jws: data.question?.receipt ?? null, error: null, loading: false });
    } catch (err) {
      setState({ jws: null, error: failureText(err, 'The receipt could not be read.'), loading: false });
    }
  };
  if (state.jws) {
    return (
      <details className="receipt" open>
        <summary>Signed receipt (JWS)</summary>
        <textarea readOnly rows={3} value={state.jws} aria-label="Signed receipt" />
        <p className="hint">Verify it offline against the server's keys (docs/receipts-and-audit.md).</p>
      </details>
    );
  }
  return (
    <p className="receipt">
      <button type="button" className="quiet" disabled={state.loading} onClick={() => void load()}>
        {state.loading ? 'Loading the receipt…' : 'Show the receipt'}
      </button>
      {state.error && <span className="card-error"> {state.error}</span>}
    </p>
  );
}

export function ApprovalStory({ question: q, api }: { question: Question; api: Transport }) {
  const a = q.action;
  if (!a) return null;
  const answer = isPlainObject(q.answer) ? q.answer : null;
  const edited = answer && isPlainObject(answer.arguments) && q.edited ? answer.arguments : undefined;
  const note = answer && typeof answer.note === 'string' ? answer.note : null;
  const byRule = q.answeredBy?.startsWith('policy:') ? q.answeredBy.slice('policy:'.length) : null;
  return (
    <div className="approval-story" data-testid="approval-story">
      <p className="action-name">
        <span className={`badge decision-${(q.decision ?? 'none').toLowerCase()}`}>{decisionText(q)}</span>{' '}
        <code>{a.name}</code>
        {a.summary && (
          <span className="action-summary">
            {' '}
            — {a.summary}
            {edited ? ' (as proposed)' : ''}
          </span>
        )}
      </p>
      {byRule && <p className="hint">Decided by the policy rule {byRule}, not by a person.</p>}
      <ArgumentsTable proposed={a.arguments} edited={edited} caption={`Arguments of ${a.name}`} />
      {note && <p className="approval-note">Note: {note}</p>}
      {q.votes.length > 0 && (
        <ul className="votes" aria-label="Votes">
          {q.votes.map((v) => (
            <li key={v.by}>
              {v.decision === 'APPROVED' ? 'Approved' : 'Rejected'} by{' '}
              <span title={v.by}>{v.byName ?? v.by}</span>
              {v.note ? ` — ${v.note}` : ''}
            </li>
          ))}
        </ul>
      )}
      <Receipt api={api} id={q.id} />
    </div>
  );
}
