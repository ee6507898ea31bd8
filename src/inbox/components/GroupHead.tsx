// The heading row of a group of related questions (same groupId): it folds the group, says how
// many are pending and, for two or more pending CONFIRM questions, offers to approve them all
// after a confirmation step. The batch itself runs in the panel, so it outlives this row when the
// virtualized list scrolls it away.
import { memo, useEffect, useId, useRef, useState } from 'react';
import type { Entry } from '../lib/arrange.ts';
import type { BatchProgress } from '../lib/batch.ts';
import type { Question } from '../lib/model.ts';
import { plainId } from './hooks.ts';

type GroupEntry = Extract<Entry, { kind: 'group' }>;

/** The group's pending CONFIRM questions: what "Approve all" answers. */
export function approvable(entry: GroupEntry): Question[] {
  const out: Question[] = [];
  for (const c of entry.cards)
    if (c.settled === null && c.question.format === 'CONFIRM') out.push(c.question);
  return out;
}

function progressText(p: BatchProgress): string {
  if (p.running) return `Approving… ${p.done + p.failed} of ${p.total} sent`;
  if (p.failed === 0) return `Approved all ${p.total}.`;
  return `${p.done} of ${p.total} approved; ${p.failed} failed: see the cards marked below.`;
}

export const GroupHead = memo(function GroupHead({
  entry,
  open,
  toggle,
  batch,
  approveAll,
  position,
  setSize,
}: {
  entry: GroupEntry;
  open: boolean;
  toggle(key: string): void;
  batch: BatchProgress | undefined;
  approveAll(entry: GroupEntry): void;
  position: number;
  setSize: number;
}) {
  const id = plainId(useId());
  const [confirming, setConfirming] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const approveButton = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      approveButton.current?.focus();
    }
  }, [confirming]);
  const all = entry.cards.length;
  const approve = approvable(entry);
  const running = batch?.running === true;
  return (
    <article
      className="group-row"
      aria-labelledby={`${id}-head`}
      aria-posinset={position}
      aria-setsize={setSize}
      data-group-id={entry.groupId}
      tabIndex={-1}
    >
      <h3 className="group-head" id={`${id}-head`}>
        <button type="button" aria-expanded={open} onClick={() => toggle(entry.key)}>
          <span className="chevron" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <span className="group-name">{entry.groupId}</span>
          <span className="badge">
            {entry.pendingCount === 0 ? 'none pending' : `${entry.pendingCount} of ${all} pending`}
          </span>
        </button>
      </h3>
      {approve.length >= 2 && !confirming && (
        <div className="actions group-actions">
          <button
            ref={approveButton}
            type="button"
            className="primary"
            disabled={running}
            onClick={() => setConfirming(true)}
          >
            Approve all {approve.length}
          </button>
        </div>
      )}
      {confirming && (
        <fieldset className="batch-confirm">
          <legend>
            Answer <strong>Yes</strong> to {approve.length} questions in {entry.groupId}? Each is sent as its
            own answer; any that fail stay pending and say why.
          </legend>
          <div className="actions">
            <button
              ref={confirmButton}
              type="button"
              className="primary"
              disabled={approve.length === 0}
              onClick={() => {
                setConfirming(false);
                approveAll(entry);
              }}
            >
              Yes, approve all {approve.length}
            </button>
            <button
              type="button"
              onClick={() => {
                returnFocus.current = true;
                setConfirming(false);
              }}
            >
              Cancel
            </button>
          </div>
        </fieldset>
      )}
      <p className="hint batch-status" role="status" data-testid="batch-status">
        {batch ? progressText(batch) : ''}
      </p>
    </article>
  );
});
