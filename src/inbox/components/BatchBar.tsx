// The bar that decides the selected cards together (issue 44 item 3): "3 selected · Approve 3 ·
// Reject 3 · Clear · Select all 20" ("all": the cards the filters show that may join a batch). It stays at the bottom of the screen while cards are selected, says how the
// batch went, and leaves each refused card pending with its own reason on it.
import type { BatchProgress } from '../lib/batch.ts';
import type { BatchDecision } from '../lib/batch-select.ts';

function progressText(p: BatchProgress, decision: BatchDecision): string {
  const verb = decision === 'APPROVED' ? 'approved' : 'rejected';
  if (p.running) return `Sending… ${p.done + p.failed} of ${p.total}`;
  if (p.failed === 0) return `All ${p.total} ${verb}.`;
  return `${p.done} of ${p.total} ${verb}; ${p.failed} failed: see the cards marked.`;
}

export function BatchBar({
  count,
  progress,
  decision,
  decide,
  selectable,
  selectAll,
  clear,
}: {
  count: number;
  progress: BatchProgress | null;
  decision: BatchDecision | null;
  decide(decision: BatchDecision): void;
  /** Cards in the list as shown that may join a batch: "Select all" picks them. */
  selectable: number;
  selectAll(): void;
  clear(): void;
}) {
  const running = progress?.running === true;
  // Offered once two cards could be decided together, or while a batch is chosen or reporting.
  if (count === 0 && !progress && selectable < 2) return null;
  return (
    <section className="batch-bar" aria-label="Batch decision">
      {count > 0 && <span className="batch-count">{count} selected</span>}
      {count > 0 && (
        <div className="actions">
          <button type="button" className="primary" disabled={running} onClick={() => decide('APPROVED')}>
            Approve {count}
          </button>
          <button type="button" disabled={running} onClick={() => decide('REJECTED')}>
            Reject {count}
          </button>
          <button type="button" className="quiet" disabled={running} onClick={clear}>
            Clear
          </button>
        </div>
      )}
      {selectable > count && selectable >= 2 && (
        <button type="button" className="quiet" disabled={running} onClick={selectAll}>
          Select all {selectable}
        </button>
      )}
      <p className="hint" role="status" data-testid="batch-bar-status">
        {progress && decision ? progressText(progress, decision) : ''}
      </p>
    </section>
  );
}
