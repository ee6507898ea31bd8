// An action's arguments as a table: one row per argument, JSON for nested values; given an edit,
// each changed row highlighted with the proposed value beside the new one. The rows and the table
// around them are also what the in-place edit (ApprovalEdit.tsx) fills with fields, so a card
// shows its arguments in one table whether it is being read or edited.
import type { ReactNode } from 'react';
import { argumentRows } from '../lib/approval.ts';

/** The table around argument rows (`editing` marks the one whose values are fields). */
export function ArgumentsShell({
  caption,
  editing = false,
  children,
}: {
  caption: string;
  editing?: boolean;
  children: ReactNode;
}) {
  return (
    <table className={editing ? 'arguments arguments-editing' : 'arguments'}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Argument</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/**
 * One argument: its name, its value (text, or a field while editing) and, when an edit changed
 * it, the row highlighted with the proposed value beside it ("proposed" while editing, "changed
 * from" once decided).
 */
export function ArgumentRow({
  name,
  was,
  wasLabel,
  children,
}: {
  name: string;
  was?: string | undefined;
  wasLabel: string;
  children: ReactNode;
}) {
  return (
    <tr className={was !== undefined ? 'arg-changed' : undefined} data-argument={name}>
      <th scope="row">{name}</th>
      <td>
        <div className="arg-value">
          <div className="arg-now">{children}</div>
          {was !== undefined && (
            <span className="arg-was">
              {wasLabel} <del>{was}</del>
            </span>
          )}
        </div>
      </td>
    </tr>
  );
}

export function ArgumentsTable({
  proposed,
  edited,
  caption,
  wasLabel = 'changed from',
}: {
  proposed: Record<string, unknown>;
  edited?: Record<string, unknown> | undefined;
  caption: string;
  wasLabel?: string;
}) {
  const rows = argumentRows(proposed, edited);
  if (rows.length === 0) return <p className="hint">No arguments.</p>;
  return (
    <ArgumentsShell caption={caption}>
      {rows.map((row) => (
        <ArgumentRow key={row.name} name={row.name} was={row.was} wasLabel={wasLabel}>
          <pre>{row.value}</pre>
        </ArgumentRow>
      ))}
    </ArgumentsShell>
  );
}
