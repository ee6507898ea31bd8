// What the pending view shows, as a pure reducer over feed events and the page's own answers.
// `pending` is exactly what the feed says is pending (each SNAPSHOT replaces it). Questions that
// leave it while the page watches stay on screen as settled cards (answered here, answered
// elsewhere, timed out, cancelled) until dismissed, so nothing vanishes under the reader's eyes.
import type { FeedEvent, Question } from './model.ts';
import { timeOf } from './model.ts';

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
  pending: ReadonlyMap<string, Question>;
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
  | { type: 'dismiss'; id: string }
  | { type: 'dismiss-settled' };

/** Settled cards kept at most (the oldest go first). */
export const SETTLED_MAX = 100;

export const initialInboxState: InboxState = {
  synced: false,
  pending: new Map(),
  settled: new Map(),
  announcement: { text: '', seq: 0 },
  resolutions: 0,
};

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

function applyFeed(state: InboxState, event: FeedEvent): InboxState {
  switch (event.type) {
    case 'SNAPSHOT': {
      const pending = new Map(event.questions.map((q) => [q.id, q] as const));
      const settled = new Map([...state.settled].filter(([id]) => !pending.has(id)));
      return { ...state, synced: true, pending, settled };
    }
    case 'ASKED': {
      const pending = new Map(state.pending);
      const settled = new Map(state.settled);
      for (const q of event.questions) {
        pending.set(q.id, q);
        settled.delete(q.id);
      }
      const first = event.questions[0];
      return {
        ...state,
        pending,
        settled,
        announcement: first ? announce(state, `New question: ${preview(first.text)}`) : state.announcement,
      };
    }
    default: {
      let pending: Map<string, Question> | null = null;
      let settled: ReadonlyMap<string, Settled> = state.settled;
      let announcement = state.announcement;
      for (const q of event.questions) {
        const mine = settled.get(q.id);
        if (state.pending.has(q.id)) {
          pending ??= new Map(state.pending);
          pending.delete(q.id);
          settled = withSettled(settled, q.id, { question: q, outcome: outcomeOf(q), byMe: false });
          announcement = announce(
            { ...state, announcement },
            `Question ${OUTCOME_WORDS[outcomeOf(q)]}: ${preview(q.text)}`,
          );
        } else if (mine) {
          // Already flipped by this page's own answer: keep that, with the feed's fuller record.
          settled = withSettled(
            settled,
            q.id,
            mine.byMe ? mine : { ...mine, question: q, outcome: outcomeOf(q) },
          );
        }
      }
      return {
        ...state,
        pending: pending ?? state.pending,
        settled,
        announcement,
        resolutions: state.resolutions + 1,
      };
    }
  }
}

export function inboxReducer(state: InboxState, action: InboxAction): InboxState {
  switch (action.type) {
    case 'feed':
      return applyFeed(state, action.event);
    case 'answered-here':
    case 'closed-elsewhere': {
      const q = action.question;
      const pending = new Map(state.pending);
      pending.delete(q.id);
      const entry: Settled =
        action.type === 'answered-here'
          ? { question: q, outcome: 'ANSWERED', byMe: true }
          : { question: q, outcome: action.outcome, byMe: false, note: action.note };
      return {
        ...state,
        pending,
        settled: withSettled(state.settled, q.id, entry),
        resolutions: state.resolutions + 1,
      };
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

// ---------------------------------------------------------------------------------------------
// Arrangement: cards folded by groupId, newest activity first.

export interface Card {
  question: Question;
  /** Null while pending. */
  settled: Settled | null;
}

export type Entry =
  | { kind: 'single'; key: string; card: Card }
  | { kind: 'group'; key: string; groupId: string; cards: Card[]; pendingCount: number };

function created(q: Question): number {
  const t = timeOf(q.createdAt);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

function newestFirst(a: Card, b: Card): number {
  const d = created(b.question) - created(a.question);
  if (d !== 0) return d;
  return a.question.id < b.question.id ? 1 : a.question.id > b.question.id ? -1 : 0;
}

/**
 * The cards to show: every pending and settled question, folded by groupId (a group with one
 * card shows as a lone card), groups ordered by their newest question and cards newest first.
 * Activity is when a question was asked: a card that settles keeps its place.
 */
export function arrange(state: Pick<InboxState, 'pending' | 'settled'>): Entry[] {
  const cards: Card[] = [];
  for (const q of state.pending.values()) cards.push({ question: q, settled: null });
  for (const s of state.settled.values()) {
    if (!state.pending.has(s.question.id)) cards.push({ question: s.question, settled: s });
  }
  cards.sort(newestFirst);
  const groups = new Map<string, Card[]>();
  const order: string[] = [];
  for (const card of cards) {
    const key = card.question.groupId === null ? `q:${card.question.id}` : `g:${card.question.groupId}`;
    const list = groups.get(key);
    if (list) list.push(card);
    else {
      groups.set(key, [card]);
      order.push(key);
    }
  }
  // Cards are sorted newest first, so each group's first card is its newest: `order` is already
  // newest activity first.
  return order.map((key): Entry => {
    const list = groups.get(key) ?? [];
    const first = list[0]!;
    if (list.length === 1 || first.question.groupId === null) return { kind: 'single', key, card: first };
    return {
      kind: 'group',
      key,
      groupId: first.question.groupId,
      cards: list,
      pendingCount: list.filter((c) => c.settled === null).length,
    };
  });
}
