// An APPROVAL question: the action, its summary and arguments as a table, the votes so far, and
// Approve / Reject with an optional note, "Approve and allow for 1 hour" (a grant, API.md §20); "Edit and approve" opens a form from argumentsSchema
// (editable actions only) with the changed arguments highlighted before they are sent.
import { lazy, Suspense, useId, useState } from 'react';
import { quorumLine } from '../lib/approval.ts';
import type { Question } from '../lib/model.ts';
import { isPlainObject } from '../lib/model.ts';
import { ArgumentsTable } from './ArgumentsTable.tsx';
import { plainId } from './hooks.ts';

// The edit form is react-jsonschema-form: it loads only when someone edits.
const ApprovalEdit = lazy(() => import('./ApprovalEdit.tsx').then((m) => ({ default: m.ApprovalEdit })));

const NOTE_MAX = 2000;
/** "Approve and allow for 1 hour" (API.md §20): the same arguments, for an hour. */
const ONE_HOUR_GRANT = { scope: 'SAME_ARGUMENTS', seconds: 3600 };

/** Grants are for questions one person decides, never sensitive ones (the server checks the rest). */
function grantOffered(q: Question): boolean {
  // As the server bounds grants (API.md §20): one approver, not sensitive, no step-up.
  return !q.sensitive && (q.quorum?.approvals ?? 1) <= 1 && q.action?.assurance !== 'HIGH';
}

export function ActionView({ question: q }: { question: Pick<Question, 'action' | 'quorum' | 'votes'> }) {
  const a = q.action;
  if (!a) return null;
  const line = quorumLine(q);
  return (
    <div className="action">
      <p className="action-name">
        <code>{a.name}</code>
        {a.summary && <span className="action-summary"> — {a.summary}</span>}
      </p>
      <ArgumentsTable proposed={a.arguments} caption={`Arguments of ${a.name}`} />
      {line && (
        <div className="votes">
          <p className="votes-line">{line}</p>
          {q.votes.length > 0 && (
            <ul aria-label="Votes so far">
              {q.votes.map((v) => (
                <li key={v.by}>
                  <span className={`badge vote-${v.decision.toLowerCase()}`}>
                    {v.decision === 'APPROVED' ? 'Approved' : 'Rejected'}
                  </span>{' '}
                  <span title={v.by}>{v.byName ?? v.by}</span>
                  {v.note ? ` — ${v.note}` : ''}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

export function ApprovalAnswer({
  question: q,
  busy,
  send,
}: {
  question: Question;
  busy: boolean;
  send(answer: unknown): void;
}) {
  const id = plainId(useId());
  const [note, setNote] = useState('');
  const [editing, setEditing] = useState(false);
  const a = q.action;
  if (!a) return <p className="card-error">This approval has no action to show.</p>;
  const withNote = (answer: Record<string, unknown>) => (note.trim() ? { ...answer, note } : answer);
  const canEdit = a.editable && isPlainObject(a.argumentsSchema);
  return (
    <div className="answer answer-approval">
      <label htmlFor={`${id}-note`}>Note (optional)</label>
      <textarea
        id={`${id}-note`}
        rows={2}
        maxLength={NOTE_MAX}
        value={note}
        onChange={(e) => setNote(e.target.value)}
        readOnly={busy}
      />
      {editing && canEdit ? (
        <Suspense fallback={<p className="answer hint">Loading the form…</p>}>
          <ApprovalEdit
            schema={a.argumentsSchema as Record<string, unknown>}
            proposed={a.arguments}
            busy={busy}
            onCancel={() => setEditing(false)}
            send={(args) => send(withNote({ decision: 'APPROVED', arguments: args }))}
          />
        </Suspense>
      ) : (
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={busy}
            data-shortcut="approve"
            onClick={() => send(withNote({ decision: 'APPROVED' }))}
          >
            Approve
          </button>
          {grantOffered(q) && (
            <button
              type="button"
              disabled={busy}
              title="Approve, and approve the same request with the same arguments by the same agent for the next hour"
              onClick={() => send(withNote({ decision: 'APPROVED', grant: ONE_HOUR_GRANT }))}
            >
              Approve and allow for 1 hour
            </button>
          )}
          <button
            type="button"
            disabled={busy}
            data-shortcut="reject"
            onClick={() => send(withNote({ decision: 'REJECTED' }))}
          >
            Reject
          </button>
          {canEdit && (
            <button
              type="button"
              className="quiet"
              disabled={busy}
              data-shortcut="edit"
              onClick={() => setEditing(true)}
            >
              Edit and approve
            </button>
          )}
        </div>
      )}
    </div>
  );
}
