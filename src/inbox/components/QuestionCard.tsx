// One question: its text, media, badges and time left, then the control to answer it; once it
// leaves the pending list, what became of it (answered here or elsewhere, timed out, cancelled).

import { lazy, memo, Suspense, useEffect, useId, useRef, useState } from 'react';
import { ladderLine } from '../../client/escalation-ladder.ts';
import { OUTCOME_LABEL } from '../lib/answers.ts';
import type { Card } from '../lib/arrange.ts';
import { audienceBadges } from '../lib/audience.ts';
import { FORMAT_LABEL } from '../lib/formats.ts';
import type { Settled } from '../lib/inbox-state.ts';
import type { Question, Viewer } from '../lib/model.ts';
import { isPlainObject, timeOf } from '../lib/model.ts';
import { answererText } from '../lib/names.ts';
import { formatWhen, timeLeft } from '../lib/time.ts';
import { AnswerView } from './AnswerView.tsx';
import { ActionView, ApprovalAnswer, ApprovalOutcome } from './ApprovalAnswer.tsx';
import { ClaimBadge } from './ClaimBadge.tsx';
import { ConfirmAnswer, ExternalAnswer, SelectAnswer, TextAnswer } from './controls.tsx';
import type { ServerFieldError } from './FormAnswer.tsx';
import { useNow } from './hooks.ts';
import { MediaList } from './Media.tsx';

// react-jsonschema-form and its validator are most of the page's weight: they load with the first
// FORM question.
const FormAnswer = lazy(() => import('./FormAnswer.tsx').then((m) => ({ default: m.FormAnswer })));

export type SubmitResult =
  | { ok: true }
  | {
      ok: false;
      /** What to tell the person, on the card. */
      message: string;
      /** The API's own message and field, for a form to put on the field. */
      serverError?: ServerFieldError;
    };

export type Submit = (question: Question, answer: unknown) => Promise<SubmitResult>;

export function Badges({
  question: q,
  viewer,
  showGroup,
}: {
  question: Question;
  viewer: Viewer;
  showGroup: boolean;
}) {
  return (
    <ul className="badges" aria-label="Details">
      <li className="badge badge-format">{FORMAT_LABEL[q.format] ?? q.format}</li>
      {q.channel && <li className="badge badge-channel">via {q.channel}</li>}
      {audienceBadges(q, viewer).map((b) => (
        <li
          key={b.text}
          className={b.delegate ? 'badge badge-delegate' : 'badge badge-audience'}
          title={b.title}
        >
          {b.text}
        </li>
      ))}
      {q.recipient && <li className="badge">to {q.recipient}</li>}
      {q.sensitive && <li className="badge badge-sensitive">sensitive</li>}
      {showGroup && q.groupId && <li className="badge">group {q.groupId}</li>}
      <li className="badge badge-quiet">from {q.askedBy}</li>
      {q.status === 'PENDING' && <ClaimBadge questionId={q.id} viewerId={viewer.id} />}
      {q.onBehalfOf && <li className="badge">answered for {q.onBehalfOf}</li>}
    </ul>
  );
}

function Deadline({ timeoutAt }: { timeoutAt: string }) {
  const now = useNow();
  const deadline = timeOf(timeoutAt);
  const left = timeLeft(deadline, now);
  return (
    <p className={left.urgent ? 'deadline deadline-urgent' : 'deadline'}>
      <time dateTime={timeoutAt} title={`Times out ${formatWhen(deadline)}`}>
        {left.text}
      </time>
    </p>
  );
}

/** The escalation ladder (API.md §18): what fired last and what comes next. */
function Ladder({ question: q }: { question: Question }) {
  const now = useNow();
  const steps = q.escalations ?? [];
  if (steps.length === 0) return null;
  const ladder = steps.map((s) => ({ ...s, firedAt: s.firedAt === null ? null : timeOf(s.firedAt) }));
  return <p className="ladder">{ladderLine(ladder, timeOf(q.createdAt), now, q.status === 'PENDING')}</p>;
}

function SettledView({
  settled,
  viewer,
  onDismiss,
  takeFocus,
}: {
  settled: Settled;
  viewer: Viewer;
  onDismiss(): void;
  /** The person answered from this card: its control is gone, so focus moves to the outcome. */
  takeFocus: boolean;
}) {
  const q = settled.question;
  const line = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    // The person just clicked in this card, so it is on screen: no scrolling to work out.
    if (takeFocus) line.current?.focus({ preventScroll: true });
  }, [takeFocus]);
  let detail: string;
  switch (settled.outcome) {
    case 'ANSWERED': {
      const who = settled.byMe ? 'you' : answererText(q, viewer, 'someone else');
      const when = formatWhen(timeOf(q.answeredAt));
      detail = `by ${who}${when ? ` · ${when}` : ''}`;
      break;
    }
    case 'TIMED_OUT':
      detail = `nobody answered in time${q.closedAt ? ` · ${formatWhen(timeOf(q.closedAt))}` : ''}`;
      break;
    case 'CANCELLED':
      detail = [q.cancelReason, q.closedAt ? formatWhen(timeOf(q.closedAt)) : ''].filter(Boolean).join(' · ');
      break;
    default:
      detail = 'it can no longer be answered';
  }
  return (
    <div className="outcome">
      <p className="outcome-line" ref={line} tabIndex={-1}>
        <span className={`badge outcome-badge outcome-${settled.outcome.toLowerCase()}`}>
          {OUTCOME_LABEL[settled.outcome]}
        </span>{' '}
        {detail}
      </p>
      {settled.note && <p className="card-error">{settled.note}</p>}
      {settled.outcome === 'ANSWERED' &&
        (settled.byMe && q.sensitive ? (
          <p className="answer-value hint">Your answer went to the asker; it is not stored or shown.</p>
        ) : q.format === 'APPROVAL' ? (
          <ApprovalOutcome question={q} />
        ) : (
          <AnswerView question={q} />
        ))}
      <div className="actions">
        <button type="button" className="quiet" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    </div>
  );
}

function AnswerControl({
  question: q,
  busy,
  send,
  serverError,
}: {
  question: Question;
  busy: boolean;
  send(answer: unknown): void;
  serverError: ServerFieldError | null;
}) {
  switch (q.format) {
    case 'TEXT':
      return <TextAnswer busy={busy} send={send} sensitive={q.sensitive} />;
    case 'CONFIRM':
      return <ConfirmAnswer busy={busy} send={send} />;
    case 'SELECT':
      return q.options && q.options.length > 0 ? (
        <SelectAnswer busy={busy} send={send} options={q.options} />
      ) : (
        <p className="card-error">This choice question has no options to choose from.</p>
      );
    case 'FORM':
      return isPlainObject(q.schema) ? (
        <Suspense fallback={<p className="answer hint">Loading the form…</p>}>
          <FormAnswer schema={q.schema} busy={busy} send={send} serverError={serverError} />
        </Suspense>
      ) : (
        <p className="card-error">This form question has no schema to build the form from.</p>
      );
    case 'EXTERNAL':
      return <ExternalAnswer link={q.link} serverVerified={q.serverVerified} />;
    case 'APPROVAL':
      return <ApprovalAnswer question={q} busy={busy} send={send} serverError={serverError} />;
    default:
      // A newer server's format reaches an older inbox: said plainly; a new format fails to
      // compile here until it has its answer control.
      q.format satisfies never;
      return <p className="card-error">This question has a format the inbox does not know.</p>;
  }
}

export interface QuestionCardProps {
  card: Card;
  viewer: Viewer;
  submit: Submit;
  dismiss(id: string): void;
  showGroup: boolean;
  /** Why an answer sent for this card from elsewhere on the page (a batch) failed. */
  failure?: string | undefined;
  /** Its place in the list (1-based) and the list's length, for screen readers. */
  position: number;
  setSize: number;
  /** Offered for a batch decision (lib/batch-select.ts), and whether it is in the batch now. */
  selectable?: boolean;
  selected?: boolean;
  onSelect?(id: string, on: boolean): void;
}

/**
 * Memoized: with thousands of cards, a change re-renders only the cards whose props changed (a
 * card object stays the same until its question does; see arrange.ts).
 */
export const QuestionCard = memo(function QuestionCard({
  card,
  viewer,
  submit,
  dismiss,
  showGroup,
  failure,
  position,
  setSize,
  selectable = false,
  selected = false,
  onSelect,
}: QuestionCardProps) {
  const q = card.question;
  const textId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; serverError: ServerFieldError | null } | null>(null);
  const [answeredHere, setAnsweredHere] = useState(false);
  const send = (answer: unknown): void => {
    if (busy) return;
    setAnsweredHere(true);
    setBusy(true);
    setError(null);
    submit(q, answer).then(
      (result) => {
        setBusy(false);
        if (!result.ok) setError({ message: result.message, serverError: result.serverError ?? null });
      },
      () => {
        setBusy(false);
        setError({ message: 'Something went wrong: try again.', serverError: null });
      },
    );
  };
  const status = card.settled ? card.settled.outcome : 'PENDING';
  const shownError = error?.message ?? failure;
  return (
    <article
      className={card.settled ? 'card card-settled' : 'card'}
      data-question-id={q.id}
      data-status={status}
      aria-labelledby={textId}
      aria-busy={busy}
      aria-posinset={position}
      aria-setsize={setSize}
      tabIndex={-1}
    >
      <div className="card-head">
        {selectable && !card.settled && (
          <label className="select-card">
            <input
              type="checkbox"
              checked={selected}
              onChange={(e) => onSelect?.(q.id, e.target.checked)}
              aria-describedby={textId}
            />
            <span className="visually-hidden">Select for a batch decision</span>
          </label>
        )}
        <Badges question={q} viewer={viewer} showGroup={showGroup} />
        {!card.settled && <Deadline timeoutAt={q.timeoutAt} />}
      </div>
      <p id={textId} className="q-text">
        {q.text}
      </p>
      {q.media && q.media.length > 0 && <MediaList items={q.media} />}
      {/* A pending approval's action is part of its answer control (the table edits in place). */}
      {q.action && card.settled && <ActionView question={q} />}
      {!card.settled && <Ladder question={q} />}
      {card.settled ? (
        <SettledView
          settled={card.settled}
          viewer={viewer}
          onDismiss={() => dismiss(q.id)}
          takeFocus={answeredHere}
        />
      ) : (
        <>
          <AnswerControl question={q} busy={busy} send={send} serverError={error?.serverError ?? null} />
          {shownError && (
            <p className="card-error" role="alert">
              {shownError}
            </p>
          )}
        </>
      )}
    </article>
  );
});
