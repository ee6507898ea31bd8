// An action's arguments as a table: one row per argument, JSON for nested values; given an edit,
// the edited values with each changed row highlighted and its proposed value struck through.
import { argumentRows } from '../lib/approval.ts';

export function ArgumentsTable({
  proposed,
  edited,
  caption,
}: {
  proposed: Record<string, unknown>;
  edited?: Record<string, unknown> | undefined;
  caption: string;
}) {
  const rows = argumentRows(proposed, edited);
  if (rows.length === 0) return <p className="hint">No arguments.</p>;
  return (
    <table className="arguments">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Argument</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.name} className={row.was !== undefined ? 'arg-changed' : undefined}>
            <th scope="row">{row.name}</th>
            <td>
              <pre>{row.value}</pre>
              {row.was !== undefined && (
                <span className="arg-was">
                  changed from <del>{row.was}</del>
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
