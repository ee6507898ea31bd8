// The listing contract, run unchanged against every store: each filter shape pages newest
// first across equal createdAt, with an exact totalCount and hasNextPage on every page.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClosedStatus, QuestionSpec, QuestionStatus } from '../../src/domain/question.ts';
import type { ListFilter, QuestionStore } from '../../src/store/types.ts';
import { specOf } from '../support/fixtures.ts';
import type { StoreHarness } from './contract.ts';

const opts = { maxPending: 1000, retentionMs: 60_000 };

interface Asked {
  spec: QuestionSpec;
  status: QuestionStatus;
}

/** What a store must list for a filter: newest first, ties by id descending (bytewise). */
function expected(all: readonly Asked[], f: ListFilter): string[] {
  return all
    .filter(
      ({ spec: s, status }) =>
        (!f.status || f.status.length === 0 || f.status.includes(status)) &&
        (f.askedBy == null || s.askedBy === f.askedBy) &&
        (f.audience == null || s.audience === f.audience) &&
        (f.groupId == null || s.groupId === f.groupId) &&
        (f.channel == null || s.channel === f.channel) &&
        (f.routedTo == null || s.routedTo === f.routedTo),
    )
    .sort((a, b) => b.spec.createdAt - a.spec.createdAt || (a.spec.id < b.spec.id ? 1 : -1))
    .map((a) => a.spec.id);
}

const CLOSED: ClosedStatus[] = ['ANSWERED', 'TIMED_OUT', 'CANCELLED'];

/** The filter shapes the inbox, the CLI and visibility scopes send, and some rarer ones. */
export const FILTER_SHAPES: ListFilter[] = [
  {},
  { status: ['PENDING'] },
  { status: ['ANSWERED'] },
  { status: CLOSED },
  { status: ['PENDING', 'ANSWERED'] },
  { status: ['PENDING', 'ANSWERED', 'TIMED_OUT', 'CANCELLED'] },
  { askedBy: 'a1' },
  { audience: 'u1' },
  { groupId: 'g1' },
  { channel: 'slack' },
  { status: ['PENDING'], askedBy: 'a2' },
  { status: ['PENDING'], audience: 'u2' },
  { status: CLOSED, audience: 'u1' },
  { status: ['CANCELLED'], askedBy: 'a1' },
  { audience: 'u1', askedBy: 'a2' },
  { status: ['ANSWERED', 'PENDING'], audience: 'u2', groupId: 'g1' },
  { status: CLOSED, audience: 'u1', askedBy: 'a1', channel: 'slack' },
  { audience: 'nobody' },
  // A delegate's handed-on on-call questions (API.md §22): a rotation's, routed to one person.
  { audience: 'oncall:r', routedTo: 'p1' },
  { status: ['PENDING'], audience: 'oncall:r', routedTo: 'p2' },
  { status: CLOSED, routedTo: 'p1' },
  { audience: 'oncall:r', routedTo: 'nobody' },
];

/** 42 questions in tie groups of six createdAt, ids whose byte order differs from a locale's. */
export async function seedListing(store: QuestionStore, t = Date.now()): Promise<Asked[]> {
  const all: Asked[] = [];
  for (let i = 0; i < 42; i++) {
    const spec = specOf({
      id: `${['A', 'b', 'C', 'd', 'E-', 'e'][i % 6]}${i}`,
      createdAt: t - 100_000 + Math.floor(i / 6) * 1000,
      timeoutAt: t + 600_000,
      askedBy: i % 2 === 0 ? 'a1' : 'a2',
      // Every third of the rest on call, routed to p1 or p2 (or, once, no one: before the rotation).
      audience: i % 3 === 0 ? 'u1' : i % 3 === 1 ? 'u2' : i % 6 === 2 ? 'oncall:r' : null,
      ...(i % 6 === 2 ? { routedTo: i === 2 ? null : i % 4 === 0 ? 'p1' : 'p2' } : {}),
      groupId: i % 4 === 0 ? 'g1' : null,
      channel: i % 5 === 0 ? 'slack' : null,
    });
    expect((await store.create(spec, opts)).kind).toBe('created');
    all.push({ spec, status: 'PENDING' });
  }
  for (const [i, a] of all.entries()) {
    const status = ([null, null, null, 'ANSWERED', 'ANSWERED', 'TIMED_OUT', 'CANCELLED'] as const)[i % 7];
    if (!status) continue;
    const r = await store.claim(a.spec.id, {
      status,
      answer: status === 'ANSWERED' ? true : null,
      answeredBy: status === 'ANSWERED' ? 'ops' : null,
      cancelReason: status === 'CANCELLED' ? 'no' : null,
      now: Date.now(),
      retentionMs: 60_000,
    });
    expect(r.kind).toBe('won');
    a.status = status;
  }
  return all;
}

/** Pages through a filter `first` at a time, checking every page against `want`. */
export async function expectPages(
  store: QuestionStore,
  filter: ListFilter,
  want: readonly string[],
  first: number,
): Promise<void> {
  const seen: string[] = [];
  let after: string | null = null;
  for (let n = 0; n < 100; n++) {
    const page = await store.list(filter, { first, after });
    expect(page.totalCount, JSON.stringify(filter)).toBe(want.length);
    expect(page.items.map((q) => q.id)).toEqual(want.slice(seen.length, seen.length + first));
    seen.push(...page.items.map((q) => q.id));
    expect(page.hasNextPage, JSON.stringify(filter)).toBe(seen.length < want.length);
    if (!page.hasNextPage) break;
    after = page.endCursor;
  }
  expect(seen).toEqual(want);
}

export function listingContract(name: string, make: () => Promise<StoreHarness>): void {
  describe(`QuestionStore listing (${name})`, () => {
    let h: StoreHarness;
    let all: Asked[];

    beforeEach(async () => {
      h = await make();
      all = await seedListing(h.store);
    });

    afterEach(async () => {
      await h.close();
    });

    it('pages every filter shape across equal createdAt with exact counts', async () => {
      for (const f of FILTER_SHAPES) {
        const want = expected(all, f);
        for (const first of [1, 4, 6, 50]) await expectPages(h.store, f, want, first);
      }
    });

    it('sees a resolution move a question between status pages, and counts pending', async () => {
      const pending = all.filter((a) => a.status === 'PENDING');
      expect(await h.store.countPending()).toBe(pending.length);
      const moved = pending[0]!;
      await h.store.claim(moved.spec.id, {
        status: 'CANCELLED',
        cancelReason: 'x',
        now: Date.now(),
        retentionMs: 60_000,
      });
      moved.status = 'CANCELLED';
      expect(await h.store.countPending()).toBe(pending.length - 1);
      for (const f of FILTER_SHAPES) await expectPages(h.store, f, expected(all, f), 5);
    });
  });
}
