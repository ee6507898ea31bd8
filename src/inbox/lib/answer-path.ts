// Where a server error points inside an answer: its `field` (`answer.a.b`, `answer.items[2]`,
// `answer["odd key"]`, API.md §3) as the path of the form field it belongs to.

const SEGMENT = /^(?:\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** The path under `answer` that a server error's `field` names, or null if it names none. */
export function answerPath(field: string | undefined): string[] | null {
  if (field === undefined || !field.startsWith('answer')) return null;
  let rest = field.slice('answer'.length);
  const path: string[] = [];
  while (rest !== '') {
    const m = SEGMENT.exec(rest);
    if (!m) return null;
    if (m[1] !== undefined) path.push(m[1]);
    else if (m[2] !== undefined) path.push(m[2]);
    else {
      try {
        path.push(JSON.parse(m[3] ?? '""') as string);
      } catch {
        return null;
      }
    }
    rest = rest.slice(m[0].length);
  }
  return path;
}

/** A server message without its leading field name: `answer.email is required` → `is required`. */
export function serverMessage(message: string, field: string | undefined): string {
  const trimmed = field && message.startsWith(`${field} `) ? message.slice(field.length + 1) : message;
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
}
