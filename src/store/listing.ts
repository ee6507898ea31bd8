// Filtering, ordering and cursors shared by both stores, so paging behaves identically.
import { badInput } from '../domain/errors.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { ListFilter } from './types.ts';

/** A position in (createdAt, id) order; opaque to clients. */
export interface Cursor {
  createdAt: number;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.createdAt}:${c.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(raw: unknown): Cursor {
  if (typeof raw !== 'string' || raw.length > 200)
    throw badInput('after is not a cursor from this server', 'after');
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const m = /^(\d{1,16}):([A-Za-z0-9-]{1,64})$/.exec(text);
  if (!m || encodeCursor({ createdAt: Number(m[1]), id: m[2]! }) !== raw) {
    throw badInput('after is not a cursor from this server', 'after');
  }
  return { createdAt: Number(m[1]), id: m[2]! };
}

export function matchesFilter(
  q: Pick<QuestionRecord, 'status' | 'groupId' | 'audience' | 'channel' | 'askedBy'> &
    Partial<Pick<QuestionRecord, 'routedTo'>>,
  f: ListFilter,
): boolean {
  if (f.status && f.status.length > 0 && !f.status.includes(q.status)) return false;
  if (f.groupId != null && q.groupId !== f.groupId) return false;
  if (f.audience != null && q.audience !== f.audience) return false;
  if (f.channel != null && q.channel !== f.channel) return false;
  if (f.askedBy != null && q.askedBy !== f.askedBy) return false;
  if (f.routedTo != null && q.routedTo !== f.routedTo) return false;
  return true;
}

/** Oldest first; ties by id, as Redis orders equal scores. */
export function compareOldestFirst(a: Cursor, b: Cursor): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Whether `c` comes after `cursor` in newest-first order. */
export function isAfterNewestFirst(c: Cursor, cursor: Cursor): boolean {
  return compareOldestFirst(c, cursor) < 0;
}

export function onlyPending(f: ListFilter): boolean {
  return !!f.status && f.status.length > 0 && f.status.every((s) => s === 'PENDING');
}
