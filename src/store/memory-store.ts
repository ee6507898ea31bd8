// The embedded store for one process: the same contract as the Redis store, held in Maps.
// Each operation runs to completion synchronously, which makes it atomic in one process;
// announcements are delivered in order on the microtask queue, like a subscriber would.
import type { QuestionRecord, QuestionSpec, Resolution } from '../domain/question.ts';
import { recordOf } from '../domain/question.ts';
import { idempotencySlot } from './idempotency.ts';
import type { Cursor } from './listing.ts';
import {
  compareOldestFirst,
  decodeCursor,
  encodeCursor,
  isAfterNewestFirst,
  matchesFilter,
  onlyPending,
} from './listing.ts';
import { createMemoryOutbox } from './memory-outbox.ts';
import { checkFollowUps } from './outbox.ts';
import { resolutionOf, timedOutResolution } from './resolution.ts';
import type {
  ClaimInput,
  ClaimResult,
  CreateOptions,
  CreateResult,
  ListFilter,
  Page,
  PageRequest,
  QuestionStore,
  Reservation,
  StoreEvent,
  StoreListener,
} from './types.ts';
import { REPLY_GRACE_MS } from './types.ts';

interface Entry {
  spec: QuestionSpec;
  resolution: Resolution | null;
  expiresAt: number;
  ticketHash: string | null;
  idemKey: string | null;
  followUps: readonly string[];
}

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  clock?: () => number;
  /** How long the asker may re-read a sensitive answer after the first read (default REPLY_GRACE_MS). */
  replyGraceMs?: number;
}

export function createMemoryStore(opts: MemoryStoreOptions = {}): QuestionStore {
  const clock = opts.clock ?? Date.now;
  const replyGraceMs = opts.replyGraceMs ?? REPLY_GRACE_MS;
  const entries = new Map<string, Entry>();
  const pendingIds = new Set<string>();
  const tickets = new Map<string, Expiring<string>>();
  const reservations = new Map<string, Expiring<string>>();
  const idem = new Map<string, Expiring<string>>();
  const replies = new Map<string, Expiring<unknown>>();
  const listeners = new Set<StoreListener>();
  const outbox = createMemoryOutbox(clock);
  let closed = false;

  function alive<T>(map: Map<string, Expiring<T>>, key: string): T | undefined {
    const e = map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= clock()) {
      map.delete(key);
      return undefined;
    }
    return e.value;
  }

  function entry(id: string): Entry | undefined {
    const e = entries.get(id);
    if (e && e.expiresAt <= clock()) {
      drop(id);
      return undefined;
    }
    return e;
  }

  function drop(id: string): void {
    entries.delete(id);
    pendingIds.delete(id);
  }

  function record(e: Entry): QuestionRecord {
    return recordOf(e.spec, e.resolution);
  }

  function announce(ev: StoreEvent): void {
    queueMicrotask(() => {
      for (const l of listeners) l.event(ev);
    });
  }

  function resolve(id: string, e: Entry, r: Resolution, retentionMs: number, now: number): QuestionRecord {
    e.resolution = r;
    e.expiresAt = now + retentionMs;
    pendingIds.delete(id);
    const t = e.ticketHash ? tickets.get(e.ticketHash) : undefined;
    if (t) t.expiresAt = now + retentionMs;
    const k = e.idemKey ? idem.get(e.idemKey) : undefined;
    if (k) k.expiresAt = now + retentionMs;
    outbox.enqueue(id, e.followUps, now);
    const q = record(e);
    announce({ type: r.status, question: q });
    return q;
  }

  function sorted(filter: ListFilter): { cursor: Cursor; e: Entry }[] {
    const ids = onlyPending(filter) ? [...pendingIds] : [...entries.keys()];
    const out: { cursor: Cursor; e: Entry }[] = [];
    for (const id of ids) {
      const e = entry(id);
      if (e && matchesFilter(record(e), filter)) out.push({ cursor: { createdAt: e.spec.createdAt, id }, e });
    }
    return out.sort((a, b) => compareOldestFirst(a.cursor, b.cursor));
  }

  return {
    kind: 'memory',
    outbox: outbox.outbox,

    async create(spec: QuestionSpec, o: CreateOptions): Promise<CreateResult> {
      const now = clock();
      const followUps = checkFollowUps(o.followUps);
      const idemKey = spec.idempotencyKey ? idempotencySlot(spec.askedBy, spec.idempotencyKey) : null;
      if (idemKey) {
        const existing = alive(idem, idemKey);
        const e = existing ? entry(existing) : undefined;
        if (e) return { kind: 'existing', question: record(e) };
      }
      let ticketHash = o.ticketHash ?? null;
      if (o.preparedId) {
        ticketHash = alive(reservations, o.preparedId) ?? null;
        if (!ticketHash) return { kind: 'no-reservation' };
      }
      if (pendingIds.size >= o.maxPending) return { kind: 'limit' };
      if (o.preparedId) reservations.delete(o.preparedId);
      const expiresAt = Math.max(spec.timeoutAt, now) + o.retentionMs;
      const e: Entry = { spec, resolution: null, expiresAt, ticketHash, idemKey, followUps };
      entries.set(spec.id, e);
      pendingIds.add(spec.id);
      if (ticketHash) tickets.set(ticketHash, { value: spec.id, expiresAt });
      if (idemKey) idem.set(idemKey, { value: spec.id, expiresAt });
      const q = record(e);
      announce({ type: 'ASKED', question: q });
      return { kind: 'created', question: q };
    },

    async claim(id: string, input: ClaimInput): Promise<ClaimResult> {
      const e = entry(id);
      if (!e) return { kind: 'missing' };
      if (e.resolution) return { kind: 'lost', question: record(e) };
      if (input.now >= e.spec.timeoutAt && input.status !== 'TIMED_OUT') {
        return {
          kind: 'lost',
          question: resolve(id, e, timedOutResolution(input.now), input.retentionMs, input.now),
        };
      }
      const r = resolutionOf(input);
      if (r.status === 'ANSWERED' && input.reply !== undefined) {
        replies.set(id, { value: input.reply, expiresAt: input.now + input.retentionMs });
      }
      return { kind: 'won', question: resolve(id, e, r, input.retentionMs, input.now) };
    },

    async get(id: string): Promise<QuestionRecord | null> {
      const e = entry(id);
      return e ? record(e) : null;
    },

    async getMany(ids: readonly string[]): Promise<(QuestionRecord | null)[]> {
      return ids.map((id) => {
        const e = entry(id);
        return e ? record(e) : null;
      });
    },

    async pending(filter: ListFilter): Promise<QuestionRecord[]> {
      return sorted({ ...filter, status: ['PENDING'] }).map((x) => record(x.e));
    },

    async list(filter: ListFilter, page: PageRequest): Promise<Page> {
      const cursor = page.after ? decodeCursor(page.after) : null;
      const all = sorted(filter).reverse();
      const rest = cursor ? all.filter((x) => isAfterNewestFirst(x.cursor, cursor)) : all;
      const items = rest.slice(0, page.first);
      const last = items.at(-1);
      return {
        items: items.map((x) => record(x.e)),
        totalCount: all.length,
        hasNextPage: rest.length > items.length,
        endCursor: last ? encodeCursor(last.cursor) : null,
      };
    },

    async questionForTicket(ticketHash: string): Promise<QuestionRecord | null> {
      const id = alive(tickets, ticketHash);
      const e = id ? entry(id) : undefined;
      return e ? record(e) : null;
    },

    async reserve(r: Reservation): Promise<void> {
      reservations.set(r.id, { value: r.ticketHash, expiresAt: r.expiresAt });
    },

    async takeReply(id: string): Promise<{ value: unknown } | undefined> {
      const v = replies.get(id);
      if (!v || v.expiresAt <= clock()) {
        replies.delete(id);
        return undefined;
      }
      // Kept for the grace after the first read (never lengthened), as in the Redis store.
      if (replyGraceMs <= 0) replies.delete(id);
      else v.expiresAt = Math.min(v.expiresAt, clock() + replyGraceMs);
      return { value: v.value };
    },

    async expireDue(now: number, retentionMs: number, limit: number): Promise<number> {
      let n = 0;
      for (const id of [...pendingIds]) {
        if (n >= limit) break;
        const e = entry(id);
        if (e && !e.resolution && e.spec.timeoutAt <= now) {
          resolve(id, e, timedOutResolution(now), retentionMs, now);
          n++;
        }
      }
      return n;
    },

    async prune(): Promise<void> {
      for (const id of [...entries.keys()]) entry(id);
      for (const map of [tickets, reservations, idem, replies] as Map<string, Expiring<unknown>>[]) {
        for (const key of [...map.keys()]) alive(map, key);
      }
    },

    async listen(listener: StoreListener): Promise<() => void> {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async ping(): Promise<boolean> {
      return !closed;
    },

    async close(): Promise<void> {
      closed = true;
      listeners.clear();
    },
  };
}
