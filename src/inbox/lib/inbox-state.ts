// What the pending view shows, as a reducer over feed events and the page's own answers.
// `pending` is exactly what the feed says is pending (each SNAPSHOT replaces it). Questions that
// leave it while the page watches stay on screen as settled cards (answered here, answered
// elsewhere, timed out, cancelled) until dismissed, so nothing vanishes under the reader's eyes.
//
// With thousands pending, copying the backlog on every event is what made the page slow: the
// reducer changes `pending` in place and bumps `version` instead (everything else it returns is
// new and small). So it must not run under useReducer, whose StrictMode double call would apply a
// change twice: the inbox store (inbox-store.ts) runs it once per action.
import type { FeedEvent, Question } from './model.ts';

/** How a card left the pending list. CLOSED: timed out or cancelled, not known which. */
export type Outcome = 'ANSWERED' | 'TIMED_OUT' | 'CANCELLED' | 'CLOSED';

export interface Settled {
  question: Question;
  outcome: Outcome;
  /** Answered from this page, by this person. */
  byMe: boolean;
  /** Why an answer from this page was refused (a 409), when that is how the page learned of it. */
  note?: string;
}

export interface InboxState {
  /** The first SNAPSHOT has arrived. */
  synced: boolean;
  /** The backlog is still arriving in parts (the last event said `more`). */
  loadingMore: boolean;
  /** Changed in place: read `version` to know it changed. */
  pending: ReadonlyMap<string, Question>;
  /** Bumped on every change to `pending`. */
  version: number;
  /** Why an answer from this page failed, by question id, for cards answered in a batch. */
  failures: ReadonlyMap<string, string>;
  settled: ReadonlyMap<string, Settled>;
  /** The latest thing worth announcing to screen readers, with a counter so repeats announce. */
  announcement: { text: string; seq: number };
  /** Bumped whenever a question resolves (the history view refreshes on it). */
  resolutions: number;
}

export type InboxAction =
  | { type: 'feed'; event: FeedEvent }
  /** The answer mutation succeeded: the card flips at once, before the feed says so. */
  | { type: 'answered-here'; question: Question }
  /** A 409 told us the question is gone; `question` is its state when known. */
  | { type: 'closed-elsewhere'; question: Question; outcome: Outcome; note: string }
  /** An answer from this page failed (the card stays pending and shows why). */
  | { type: 'failed'; id: string; message: string }
  /** A new attempt on the card clears its failure. */
  | { type: 'retrying'; id: string }
  | { type: 'dismiss'; id: string }
  | { type: 'dismiss-settled' };

/** Settled cards kept at most (the oldest go first). */
export const SETTLED_MAX = 100;

/** A fresh state (its own pending map, which the reducer changes in place). */
export function initialInboxState(): InboxState {
  return {
    synced: false,
    loadingMore: false,
    pending: new Map(),
    version: 0,
    failures: new Map(),
    settled: new Map(),
    announcement: { text: '', seq: 0 },
    resolutions: 0,
  };
}

const PREVIEW_CHARS = 80;

export function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const chars = [...oneLine];
  return chars.length > PREVIEW_CHARS ? `${chars.slice(0, PREVIEW_CHARS).join('')}…` : oneLine;
}

function outcomeOf(q: Question): Outcome {
  return q.status === 'PENDING' ? 'CLOSED' : q.status;
}

const OUTCOME_WORDS: Record<Outcome, string> = {
  ANSWERED: 'answered',
  TIMED_OUT: 'timed out',
  CANCELLED: 'cancelled',
  CLOSED: 'closed',
};

function withSettled(
  settled: ReadonlyMap<string, Settled>,
  id: string,
  entry: Settled,
): Map<string, Settled> {
  const next = new Map(settled);
  next.delete(id);
  next.set(id, entry);
  while (next.size > SETTLED_MAX) {
    const oldest = next.keys().next().value;
    if (oldest === undefined) break;
    next.delete(oldest);
  }
  return next;
}

function announce(state: InboxState, text: string): InboxState['announcement'] {
  return { text, seq: state.announcement.seq + 1 };
}

/** The pending map, writable: only this reducer changes it. */
function writable(state: InboxState): Map<string, Question> {
  return state.pending as Map<string, Question>;
}

function withoutFailures(
  failures: ReadonlyMap<string, string>,
  ids: Iterable<string>,
): ReadonlyMap<string, string> {
  if (failures.size === 0) return failures;
  let next: Map<string, string> | null = null;
  for (const id of ids) {
    if (!failures.has(id)) continue;
    next ??= new Map(failures);
    next.delete(id);
  }
  return next ?? failures;
}

function applyFeed(state: InboxState, event: FeedEvent): InboxState {
  const pending = writable(state);
  switch (event.type) {
    case 'SNAPSHOT': {
      pending.clear();
      for (const q of event.questions) pending.set(q.id, q);
      const settled = new Map([...state.settled].filter(([id]) => !pending.has(id)));
      const failures = new Map([...state.failures].filter(([id]) => pending.has(id)));
      return {
        ...state,
        synced: true,
        loadingMore: event.more,
        version: state.version + 1,
        settled,
        failures,
      };
    }
    case 'ASKED': {
      let settled: ReadonlyMap<string, Settled> = state.settled;
      for (const q of event.questions) {
        pending.set(q.id, q);
        if (settled.has(q.id)) {
          const copy = new Map(settled);
          copy.delete(q.id);
          settled = copy;
        }
      }
      // A part of the backlog (after an event with `more`) is not news: no announcement.
      const first = state.loadingMore ? undefined : event.questions[0];
      return {
        ...state,
        loadingMore: state.loadingMore && event.more,
        version: state.version + 1,
        settled,
        announcement: first ? announce(state, `New question: ${preview(first.text)}`) : state.announcement,
      };
    }
    case 'UPDATED': {
      // A pending question changed (a vote was cast, an escalation step fired): its card shows the new copy.
      let changed = false;
      for (const q of event.questions) {
        if (!pending.has(q.id)) continue;
        pending.set(q.id, q);
        changed = true;
      }
      return changed ? { ...state, version: state.version + 1 } : state;
    }
    default: {
      let settled: ReadonlyMap<string, Settled> = state.settled;
      let announcement = state.announcement;
      let changed = false;
      for (const q of event.questions) {
        const mine = settled.get(q.id);
        if (pending.delete(q.id)) {
          changed = true;
          settled = withSettled(settled, q.id, { question: q, outcome: outcomeOf(q), byMe: false });
          announcement = announce(
            { ...state, announcement },
            `Question ${OUTCOME_WORDS[outcomeOf(q)]}: ${preview(q.text)}`,
          );
        } else if (mine && !mine.byMe) {
          // Settled by a 409 here: learn the exact outcome from the feed's fuller record. A card
          // answered from this page stays as it is (and the settled map unchanged, so the list
          // is not arranged again for nothing).
          settled = withSettled(settled, q.id, { ...mine, question: q, outcome: outcomeOf(q) });
        }
      }
      return {
        ...state,
        version: changed ? state.version + 1 : state.version,
        failures: withoutFailures(
          state.failures,
          event.questions.map((q) => q.id),
        ),
        settled,
        announcement,
        resolutions: state.resolutions + 1,
      };
    }
  }
}

/**
 * Applies one action. It changes `state.pending` in place (see the top of this file) and returns
 * the next state; call it once per action.
 */
export function inboxReducer(state: InboxState, action: InboxAction): InboxState {
  switch (action.type) {
    case 'feed':
      return applyFeed(state, action.event);
    case 'answered-here':
    case 'closed-elsewhere': {
      const q = action.question;
      const removed = writable(state).delete(q.id);
      const entry: Settled =
        action.type === 'answered-here'
          ? { question: q, outcome: 'ANSWERED', byMe: true }
          : { question: q, outcome: action.outcome, byMe: false, note: action.note };
      return {
        ...state,
        version: removed ? state.version + 1 : state.version,
        failures: withoutFailures(state.failures, [q.id]),
        settled: withSettled(state.settled, q.id, entry),
        resolutions: state.resolutions + 1,
      };
    }
    case 'failed': {
      if (!state.pending.has(action.id)) return state;
      return { ...state, failures: new Map(state.failures).set(action.id, action.message) };
    }
    case 'retrying': {
      const failures = withoutFailures(state.failures, [action.id]);
      return failures === state.failures ? state : { ...state, failures };
    }
    case 'dismiss': {
      if (!state.settled.has(action.id)) return state;
      const settled = new Map(state.settled);
      settled.delete(action.id);
      return { ...state, settled };
    }
    case 'dismiss-settled':
      return state.settled.size === 0 ? state : { ...state, settled: new Map() };
  }
}
