// A group of related questions (same groupId), folded under one heading with its pending count.
import { type ReactNode, useState } from 'react';
import type { Entry } from '../lib/inbox-state.ts';
import { plainId } from './hooks.ts';

export function GroupSection({
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
