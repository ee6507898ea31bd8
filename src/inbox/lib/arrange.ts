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

interface Keys {
  created: number;
  timeout: number;
  /** Lower-cased text, for the text filter. */
  text: string;
}

const keyCache = new WeakMap<Question, Keys>();

function keysOf(q: Question): Keys {
  let k = keyCache.get(q);
  if (!k) {
    const created = timeOf(q.createdAt);
    const timeout = timeOf(q.timeoutAt);
    k = {
      created: Number.isNaN(created) ? Number.NEGATIVE_INFINITY : created,
      timeout: Number.isNaN(timeout) ? Number.POSITIVE_INFINITY : timeout,
      text: q.text.toLocaleLowerCase(),
    };
    keyCache.set(q, k);
  }
  return k;
}

const pendingCards = new WeakMap<Question, Card>();
const settledCards = new WeakMap<Settled, Card>();

function pendingCard(q: Question): Card {
  let c = pendingCards.get(q);
  if (!c) {
    c = { question: q, settled: null };
    pendingCards.set(q, c);
  }
  return c;
}

function settledCard(s: Settled): Card {
  let c = settledCards.get(s);
  if (!c) {
    c = { question: s.question, settled: s };
    settledCards.set(s, c);
  }
  return c;
}

/** Ties break on the id, so the order never depends on the map's. */
function byId(a: Card, b: Card): number {
  return a.question.id < b.question.id ? 1 : a.question.id > b.question.id ? -1 : 0;
}

/** A card with its sort key read once, so the sort compares plain numbers. */
interface Keyed {
  key: number;
  card: Card;
}

const COMPARE: Record<SortOrder, (a: Keyed, b: Keyed) => number> = {
  newest: (a, b) => b.key - a.key || byId(a.card, b.card),
  oldest: (a, b) => a.key - b.key || byId(b.card, a.card),
  timeout: (a, b) => a.key - b.key || byId(b.card, a.card),
};

function sortKey(q: Question, order: SortOrder): number {
  const k = keysOf(q);
  return order === 'timeout' ? k.timeout : k.created;
}

/** Whether a question passes the filter. */
export function matches(q: Question, f: Filter): boolean {
  if (f.format && q.format !== f.format) return false;
  if (f.group && q.groupId !== f.group) return false;
  if (f.channel && q.channel !== f.channel) return false;
  if (f.audience && q.audience !== f.audience) return false;
  if (f.asker && q.askedBy !== f.asker) return false;
  const needle = f.text.trim().toLocaleLowerCase();
  return needle === '' || keysOf(q).text.includes(needle);
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
  const keyed: Keyed[] = [];
  for (const q of state.pending.values()) {
    if (all || matches(q, filter)) keyed.push({ key: sortKey(q, order), card: pendingCard(q) });
  }
  const shownPending = keyed.length;
  for (const s of state.settled.values()) {
    if (!state.pending.has(s.question.id) && (all || matches(s.question, filter))) {
      keyed.push({ key: sortKey(s.question, order), card: settledCard(s) });
    }
  }
  keyed.sort(COMPARE[order]);
  const groups = new Map<string, Card[]>();
  for (const { card } of keyed) {
    const key = card.question.groupId === null ? `q:${card.question.id}` : `g:${card.question.groupId}`;
    const list = groups.get(key);
    if (list) list.push(card);
    else groups.set(key, [card]);
  }
  // A Map iterates in insertion order: groups come in the order of their first card.
  const entries: Entry[] = [];
  for (const [key, list] of groups) {
    const first = list[0]!;
    if (list.length === 1 || first.question.groupId === null)
      entries.push({ kind: 'single', key, card: first });
    else {
      let pendingCount = 0;
      for (const c of list) if (c.settled === null) pendingCount++;
      entries.push({ kind: 'group', key, groupId: first.question.groupId, cards: list, pendingCount });
    }
  }
  return { entries, shownPending };
}

export interface Facets {
  groups: string[];
  channels: string[];
  audiences: string[];
  askers: string[];
}

/** The values the pending list holds for each filter with a fixed set of choices, sorted. */
export function facets(pending: ReadonlyMap<string, Question>): Facets {
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
  const sorted = (s: Set<string>) => [...s].sort((a, b) => a.localeCompare(b));
  return {
    groups: sorted(groups),
    channels: sorted(channels),
    audiences: sorted(audiences),
    askers: sorted(askers),
  };
}
