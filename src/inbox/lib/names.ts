// Who answered, as a person reads it (API.md §19): "you", else the answerer's name where the
// server knows one, else their id. The id is kept in the card's title for whoever needs it.
import type { Question, Viewer } from './model.ts';

export function answererText(
  q: Pick<Question, 'answeredBy' | 'answeredByName'>,
  viewer: Viewer,
  fallback: string,
): string {
  if (q.answeredBy === viewer.id) return 'you';
  // A policy rule decided it (API.md §20): said as a rule, never taken for a person's name.
  if (q.answeredBy?.startsWith('policy:')) return `policy rule ${q.answeredBy.slice('policy:'.length)}`;
  return q.answeredByName ?? q.answeredBy ?? fallback;
}
