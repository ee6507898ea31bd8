// The line that follows an approval from decision to action (API.md §23): "approved 10:02 · run
// 10:03 · succeeded" — when it was decided, when the tool used it, and what the tool reported
// ("not reported yet" until it does). Null for anything that was not approved and used.
import type { Question } from './model.ts';

/** Hours and minutes in the viewer's time zone (or `timeZone`, for tests). */
function clock(iso: string, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(iso));
}

export function executionLine(
  q: Pick<Question, 'decision' | 'answeredAt' | 'execution'>,
  timeZone?: string,
): string | null {
  const e = q.execution;
  if (q.decision !== 'APPROVED' || !e || !q.answeredAt) return null;
  const outcome = e.outcome ? e.outcome.toLowerCase() : 'not reported yet';
  return `approved ${clock(q.answeredAt, timeZone)} · run ${clock(e.consumedAt, timeZone)} · ${outcome}`;
}
