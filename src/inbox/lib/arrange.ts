// Arrangement: which cards the pending view shows and in what order — filtered and sorted on the
// client over the live list, then folded by groupId. With thousands pending this runs on every
// change, so what it needs per question (times, lower-cased text, the card object) is worked out
// once per question object and kept in WeakMaps: a card stays the same object until its question
// changes, which lets memoized cards skip rendering.
import type { InboxState, Settled } from './inbox-state.ts';
import type { AnswerFormat, Question } from './model.ts';
import { timeOf } from './model.ts';

export interface Card {
  question: Question;
  /** Null while pending. */
  settled: Settled | null;
}

export type Entry =
  | { kind: 'single'; key: string; card: Card }
  | { kind: 'group'; key: string; groupId: string; cards: Card[]; pendingCount: number };

export type SortOrder = 'newest' | 'oldest' | 'timeout';

/** What the person filters by; an empty string means "any". */
export interface Filter {
  text: string;
  format: AnswerFormat | '';
  group: string;
  channel: string;
  audience: string;
  asker: string;
}

export const NO_FILTER: Filter = { text: '', format: '', group: '', channel: '', audience: '', asker: '' };

export function isFiltering(f: Filter): boolean {
  return Object.values(f).some((v) => v.trim() !== '');
}

/** What arranging needs of a card, worked out once per question (or settled entry) object. */
interface Item {
  created: number;
  timeout: number;
  /** Lower-cased text, for the text filter. */
  text: string;
  card: Card;
  /** The card as a lone entry (stable, like the card). */
  single: Entry;
}

function itemFor(card: Card): Item {
  const q = card.question;
  const created = timeOf(q.createdAt);
  const timeout = timeOf(q.timeoutAt);
  return {
    created: Number.isNaN(created) ? Number.NEGATIVE_INFINITY : created,
    timeout: Number.isNaN(timeout) ? Number.POSITIVE_INFINITY : timeout,
    text: q.text.toLocaleLowerCase(),
    card,
    single: { kind: 'single', key: q.groupId === null ? `q:${q.id}` : `g:${q.groupId}`, card },
  };
}

const pendingItems = new WeakMap<Question, Item>();
const settledItems = new WeakMap<Settled, Item>();

function pendingItem(q: Question): Item {
  let it = pendingItems.get(q);
  if (!it) {
    it = itemFor({ question: q, settled: null });
    pendingItems.set(q, it);
  }
  return it;
}

function settledItem(s: Settled): Item {
  let it = settledItems.get(s);
  if (!it) {
    it = itemFor({ question: s.question, settled: s });
    settledItems.set(s, it);
  }
  return it;
}

/** Ties break on the id, so the order never depends on the map's. */
function byId(a: Item, b: Item): number {
  const x = a.card.question.id;
  const y = b.card.question.id;
  return x < y ? 1 : x > y ? -1 : 0;
}

const COMPARE: Record<SortOrder, (a: Item, b: Item) => number> = {
  newest: (a, b) => b.created - a.created || byId(a, b),
  oldest: (a, b) => a.created - b.created || byId(b, a),
  timeout: (a, b) => a.timeout - b.timeout || byId(b, a),
};

/** Whether a question passes the filter. */
export function matches(q: Question, f: Filter): boolean {
  if (f.format && q.format !== f.format) return false;
  if (f.group && q.groupId !== f.group) return false;
  if (f.channel && q.channel !== f.channel) return false;
  if (f.audience && q.audience !== f.audience) return false;
  if (f.asker && q.askedBy !== f.asker) return false;
  const needle = f.text.trim().toLocaleLowerCase();
  return needle === '' || pendingItem(q).text.includes(needle);
}

export interface Arranged {
  entries: Entry[];
  /** Pending questions that pass the filter. */
  shownPending: number;
}

/**
 * The cards to show: every pending and settled question that passes the filter, folded by
 * groupId (a group with one card shows as a lone card), cards in the chosen order and each group
 * placed by its first card. A card that settles keeps its place, so nothing jumps under the pointer.
 */
export function arrange(
  state: Pick<InboxState, 'pending' | 'settled'>,
  filter: Filter = NO_FILTER,
  order: SortOrder = 'newest',
): Arranged {
  const all = !isFiltering(filter);
  const items: Item[] = [];
  for (const q of state.pending.values()) if (all || matches(q, filter)) items.push(pendingItem(q));
  const shownPending = items.length;
  for (const s of state.settled.values()) {
    if (!state.pending.has(s.question.id) && (all || matches(s.question, filter))) items.push(settledItem(s));
  }
  items.sort(COMPARE[order]);
  // One pass: lone cards go straight in; a group takes the place of its first card.
  const entries: Entry[] = [];
  const groups = new Map<string, { at: number; cards: Card[] }>();
  for (const it of items) {
    const g = it.card.question.groupId;
    if (g === null) {
      entries.push(it.single);
      continue;
    }
    const group = groups.get(g);
    if (group) group.cards.push(it.card);
    else {
      groups.set(g, { at: entries.length, cards: [it.card] });
      entries.push(it.single);
    }
  }
  for (const [groupId, { at, cards }] of groups) {
    if (cards.length === 1) continue;
    let pendingCount = 0;
    for (const c of cards) if (c.settled === null) pendingCount++;
    entries[at] = { kind: 'group', key: `g:${groupId}`, groupId, cards, pendingCount };
  }
  return { entries, shownPending };
}

export interface Facets {
  groups: string[];
  channels: string[];
  audiences: string[];
  askers: string[];
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * The values the pending list holds for each filter with a fixed set of choices, sorted. Given
 * the previous result, each list that did not change is that same array, and the result is
 * `previous` itself when none did: an answer then leaves the filter bar's hundreds of options
 * alone.
 */
export function facets(pending: ReadonlyMap<string, Question>, previous?: Facets): Facets {
  const groups = new Set<string>();
  const channels = new Set<string>();
  const audiences = new Set<string>();
  const askers = new Set<string>();
  for (const q of pending.values()) {
    if (q.groupId) groups.add(q.groupId);
    if (q.channel) channels.add(q.channel);
    if (q.audience) audiences.add(q.audience);
    askers.add(q.askedBy);
  }
  const sorted = (s: Set<string>, was: readonly string[] | undefined): string[] => {
    const list = [...s].sort((a, b) => a.localeCompare(b));
    return was && sameList(was, list) ? (was as string[]) : list;
  };
  const next = {
    groups: sorted(groups, previous?.groups),
    channels: sorted(channels, previous?.channels),
    audiences: sorted(audiences, previous?.audiences),
    askers: sorted(askers, previous?.askers),
  };
  return previous &&
    next.groups === previous.groups &&
    next.channels === previous.channels &&
    next.audiences === previous.audiences &&
    next.askers === previous.askers
    ? previous
    : next;
}
