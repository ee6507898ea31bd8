// Quotas on the pending backlog (API.md §1): how many questions and how many media bytes one
// principal may have pending, and the media bytes of all pending questions together. The
// stores enforce them in the step that creates a question and release them when it resolves.

import { utf8ByteLength } from './limits.ts';
import type { MediaItem } from './question.ts';

export const DEFAULT_MAX_PENDING_PER_PRINCIPAL = 1000;
export const DEFAULT_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL = 64 * 1024 * 1024;
export const DEFAULT_MAX_PENDING_MEDIA_BYTES = 512 * 1024 * 1024;
/** Outbox items (follow-ups not yet delivered) at which questions with follow-ups are refused. */
export const DEFAULT_OUTBOX_MAX = 100_000;

/** The caps one create is checked against; the asker is the question's askedBy. */
export interface Quota {
  /** Most questions pending at once, all callers together. */
  maxPending: number;
  /** Most questions the asker may have pending at once. */
  maxPendingPerPrincipal: number;
  /** Most media bytes of the asker's pending questions together. */
  maxMediaBytesPerPrincipal: number;
  /** Most media bytes of every pending question together. */
  maxMediaBytes: number;
}

/** Which cap refused a create. */
export type QuotaLimit =
  | 'pending'
  | 'pendingPerPrincipal'
  | 'mediaBytesPerPrincipal'
  | 'mediaBytes'
  /** The outbox is full: a question with follow-ups (a channel, `notify`) must wait. */
  | 'outbox';

/** What the backlog holds for one principal and in total. */
export interface Usage {
  pending: number;
  /** Live prepareExternal reservations of the principal: they count against its pending cap too. */
  reserved: number;
  mediaBytes: number;
  totalPending: number;
  totalMediaBytes: number;
}

/** The bytes a question's media costs: UTF-8 of every URL and caption (data URIs dominate). */
export function mediaBytesOf(media: readonly MediaItem[] | null): number {
  if (!media) return 0;
  let n = 0;
  for (const m of media) n += utf8ByteLength(m.url) + (m.caption ? utf8ByteLength(m.caption) : 0);
  return n;
}

/** The setting each cap comes from, for messages that say what to change. */
const SETTING: Record<QuotaLimit, string> = {
  pending: 'INTERACTIONS_MAX_PENDING',
  pendingPerPrincipal: 'INTERACTIONS_MAX_PENDING_PER_PRINCIPAL',
  mediaBytesPerPrincipal: 'INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL',
  mediaBytes: 'INTERACTIONS_MAX_PENDING_MEDIA_BYTES',
  outbox: 'INTERACTIONS_OUTBOX_MAX',
};

/** The LIMIT_EXCEEDED message: which limit, its value, and that nothing was stored. */
export function limitMessage(limit: QuotaLimit, q: Quota, mediaBytes: number, maxOutbox = 0): string {
  switch (limit) {
    case 'pending':
      return `too many questions are pending on this server (${SETTING.pending} = ${q.maxPending}); try again later`;
    case 'pendingPerPrincipal':
      return `this key already has its limit of pending questions and prepareExternal reservations (${SETTING.pendingPerPrincipal} or its maxPending = ${q.maxPendingPerPrincipal}); resolve some first, or let reservations expire`;
    case 'mediaBytesPerPrincipal':
      return `this question's ${mediaBytes} media bytes would exceed this key's pending media limit (${SETTING.mediaBytesPerPrincipal} = ${q.maxMediaBytesPerPrincipal} bytes)`;
    case 'mediaBytes':
      return `this question's ${mediaBytes} media bytes would exceed the server's pending media budget (${SETTING.mediaBytes} = ${q.maxMediaBytes} bytes); try again later`;
    case 'outbox':
      return `the server's outbox of follow-ups (channel edits, resume webhooks) is full (${SETTING.outbox} = ${maxOutbox}); questions with a channel or notify are refused until it drains; try again later`;
  }
}
