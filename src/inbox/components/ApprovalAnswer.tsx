// An APPROVAL question at a glance (issue 44 item 2): the action and its arguments shown once, as
// one table, then the votes so far and, below the table, the note with the decision buttons:
// Approve / Reject, "Approve and allow for 1 hour" (a grant, API.md §20), and, for an editable
// action, "Edit", which turns the same table's values into fields in place (ApprovalEdit.tsx):
// changed values highlighted with the proposal beside them, and the agent's summary marked
// "proposed" once an argument changed (it describes the proposal, not the edit).
//
// The action is rendered from the presentation object every surface uses (domain/presentation.ts,
// API.md §23): what the card shows is what the server digests as `presentedDigest` for an answer
// from the inbox, the same digest a channel records when it shows the action whole.
import { lazy, Suspense, useId, useState } from 'react';
import { type Presentation, presentOn } from '../../domain/presentation.ts';
import type { JsonObject } from '../../domain/question.ts';
import { changesAny, quorumLine } from '../lib/approval.ts';
import { executionLine } from '../lib/execution-line.ts';
import type { Question } from '../lib/model.ts';
import { isPlainObject } from '../lib/model.ts';
import { ArgumentsTable } from './ArgumentsTable.tsx';
import type { ServerFieldError } from './FormAnswer.tsx';
import { plainId } from './hooks.ts';

// The edit form is react-jsonschema-form: it loads only when someone edits.
const ApprovalEdit = lazy(() => import('./ApprovalEdit.tsx').then((m) => ({ default: m.ApprovalEdit })));

const NOTE_MAX = 2000;
/** "Approve and allow for 1 hour" (API.md §20): the same arguments, for an hour. */
const ONE_HOUR_GRANT = { scope: 'SAME_ARGUMENTS', seconds: 3600 };

type Action = NonNullable<Question['action']>;

/** The action as the inbox shows it (whole: the inbox has no bounds), with `args` approved. */
export function presentInInbox(a: Action, args: Record<string, unknown> = a.arguments): Presentation {
  return presentOn('inbox', a, args as JsonObject);
}

/** Grants are for questions one person decides, never sensitive ones (the server checks the rest). */
function grantOffered(q: Question): boolean {
  // As the server bounds grants (API.md §20): one approver, not sensitive, no step-up.
  return !q.sensitive && (q.quorum?.approvals ?? 1) <= 1 && q.action?.assurance !== 'HIGH';
}

/** The name and the agent's summary; "proposed" beside the summary once the arguments changed. */
function ActionHead({ shown, proposed }: { shown: Presentation; proposed: boolean }) {
  return (
    <p className="action-name">
      <code>{shown.name}</code>
      {shown.summary && (
        <span className="action-summary">
          {' '}
          — {shown.summary}
          {proposed && (
            <>
              {' '}
              <span
                className="badge badge-warning summary-proposed"
                title="The agent's summary describes its proposal, not your changes"
              >
                proposed
              </span>
            </>
          )}
        </span>
      )}
    </p>
  );
}

/** The arguments of a presentation: its table, or the text a bounded surface cut them to. */
function PresentedArguments({
  shown,
  approved,
  wasLabel,
}: {
  shown: Presentation;
  approved?: Presentation | undefined;
  wasLabel?: string;
}) {
  if (typeof shown.arguments === 'string') return <pre className="arguments-text">{shown.arguments}</pre>;
  const edited = approved && isPlainObject(approved.arguments) ? approved.arguments : undefined;
  return (
    <ArgumentsTable
      proposed={shown.arguments}
      edited={edited}
      caption={`Arguments of ${shown.name}`}
      wasLabel={wasLabel}
    />
  );
}

function Votes({ question: q }: { question: Pick<Question, 'quorum' | 'votes'> }) {
  const line = quorumLine(q);
  if (!line) return null;
  return (
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
  );
}

/** The approved arguments of an answered approval that changed them, else undefined. */
function editedArguments(q: Pick<Question, 'answer' | 'edited'>): Record<string, unknown> | undefined {
  const answer = isPlainObject(q.answer) ? q.answer : null;
  return q.edited && answer && isPlainObject(answer.arguments) ? answer.arguments : undefined;
}

/**
 * A settled card's action: the table once, with the approved arguments and each changed one
 * "changed from" its proposal (the summary marked "proposed"), and the votes.
 */
export function ActionView({
  question: q,
}: {
  question: Pick<Question, 'action' | 'quorum' | 'votes' | 'answer' | 'edited'>;
}) {
  const a = q.action;
  if (!a) return null;
  const edited = editedArguments(q);
  const shown = presentInInbox(a);
  const approved = edited ? presentInInbox(a, edited) : undefined;
  return (
    <div className="action">
      <ActionHead shown={shown} proposed={edited !== undefined} />
      <PresentedArguments shown={shown} approved={approved} />
      <Votes question={q} />
    </div>
  );
}

/** What a settled approval came to: the decision, the note, and what became of the action (§23). */
export function ApprovalOutcome({
  question: q,
}: {
  question: Pick<Question, 'answer' | 'decision' | 'edited' | 'answeredAt' | 'execution' | 'sensitive'>;
}) {
  const answer = isPlainObject(q.answer) ? q.answer : null;
  const note = answer && typeof answer.note === 'string' ? answer.note : null;
  const line = executionLine(q);
  let decision: string | null = null;
  if (q.decision === 'APPROVED') decision = q.edited ? 'Approved with changes' : 'Approved';
  else if (q.decision === 'REJECTED') decision = 'Rejected';
  return (
    <>
      {decision && (
        <p className="answer-value">
          <span className={`badge decision-${(q.decision ?? '').toLowerCase()}`}>{decision}</span>
          {note && !q.sensitive ? ` — ${note}` : ''}
        </p>
      )}
      {line && (
        <p className="execution-line" data-testid="execution-line">
          {line}
        </p>
      )}
    </>
  );
}

/** The note and the decision buttons, below the table (inside the edit form while editing). */
function Decision({
  id,
  note,
  setNote,
  busy,
  editing,
  canEdit,
  grant,
  approve,
  reject,
  approveForAnHour,
  edit,
  cancel,
}: {
  id: string;
  note: string;
  setNote(note: string): void;
  busy: boolean;
  editing: boolean;
  canEdit: boolean;
  grant: boolean;
  approve(): void;
  reject(): void;
  approveForAnHour(): void;
  edit(): void;
  cancel(): void;
}) {
  return (
    <div className="decision">
      <label htmlFor={`${id}-note`}>Note (optional)</label>
      <textarea
        id={`${id}-note`}
        rows={2}
        maxLength={NOTE_MAX}
        value={note}
        onChange={(e) => setNote(e.target.value)}
        readOnly={busy}
      />
      <div className="actions">
        {editing ? (
          // Submits the edit form: its fields are checked first, errors shown under them.
          <button type="submit" className="primary" disabled={busy} data-shortcut="approve">
            Approve with these arguments
          </button>
        ) : (
          <button type="button" className="primary" disabled={busy} data-shortcut="approve" onClick={approve}>
            Approve
          </button>
        )}
        {!editing && grant && (
          <button
            type="button"
            disabled={busy}
            title="Approve, and approve the same request with the same arguments by the same agent for the next hour"
            onClick={approveForAnHour}
          >
            Approve and allow for 1 hour
          </button>
        )}
        <button type="button" disabled={busy} data-shortcut="reject" onClick={reject}>
          Reject
        </button>
        {editing ? (
          <button type="button" className="quiet" disabled={busy} onClick={cancel}>
            Cancel editing
          </button>
        ) : (
          canEdit && (
            <button type="button" className="quiet" disabled={busy} data-shortcut="edit" onClick={edit}>
              Edit
            </button>
          )
        )}
      </div>
    </div>
  );
}

export function ApprovalAnswer({
  question: q,
  busy,
  send,
  serverError,
}: {
  question: Question;
  busy: boolean;
  send(answer: unknown): void;
  /** The server's refusal of an edited argument, for its field. */
  serverError?: ServerFieldError | null;
}) {
  const id = plainId(useId());
  const [note, setNote] = useState('');
  // The arguments being edited; null while the card only shows them.
  const [edited, setEdited] = useState<Record<string, unknown> | null>(null);
  const a = q.action;
  if (!a) return <p className="card-error">This approval has no action to show.</p>;
  const withNote = (answer: Record<string, unknown>) => (note.trim() ? { ...answer, note } : answer);
  const canEdit = a.editable && isPlainObject(a.argumentsSchema);
  const editing = canEdit && edited !== null;
  const shown = presentInInbox(a);
  const decision = (
    <Decision
      id={id}
      note={note}
      setNote={setNote}
      busy={busy}
      editing={editing}
      canEdit={canEdit}
      grant={grantOffered(q)}
      approve={() => send(withNote({ decision: 'APPROVED' }))}
      reject={() => send(withNote({ decision: 'REJECTED' }))}
      approveForAnHour={() => send(withNote({ decision: 'APPROVED', grant: ONE_HOUR_GRANT }))}
      edit={() => setEdited(structuredClone(a.arguments))}
      cancel={() => setEdited(null)}
    />
  );
  return (
    <div className="answer answer-approval">
      <ActionHead shown={shown} proposed={editing && changesAny(a.arguments, edited)} />
      {editing ? (
        <Suspense
          fallback={
            <>
              <PresentedArguments shown={shown} />
              <p className="hint">Loading the fields…</p>
            </>
          }
        >
          <ApprovalEdit
            schema={a.argumentsSchema as Record<string, unknown>}
            proposed={a.arguments}
            formData={edited}
            onChange={setEdited}
            busy={busy}
            serverError={serverError ?? null}
            caption={`Arguments of ${shown.name}`}
            send={(args) => send(withNote({ decision: 'APPROVED', arguments: args }))}
          >
            <Votes question={q} />
            {decision}
          </ApprovalEdit>
        </Suspense>
      ) : (
        <>
          <PresentedArguments shown={shown} />
          <Votes question={q} />
          {decision}
        </>
      )}
    </div>
  );
}
