// Quotas in the store (both stores): per-asker pending count and media bytes, the server's media
// budget, each at its value and one past it, checked in the create step itself and released
// by every resolution (answer, timeout, cancel, expiry sweep).
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { MediaItem, QuestionSpec } from '../../src/domain/question.ts';
import { mediaBytesOf } from '../../src/domain/quotas.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import type { CreateOptions, QuestionStore } from '../../src/store/types.ts';
import { openRedisStore, specOf } from '../support/fixtures.ts';

const PNG = 'data:image/png;base64,';
/** One IMAGE whose URL is exactly `bytes` long. */
const image = (bytes: number): MediaItem[] => [{ kind: 'IMAGE', url: PNG + 'A'.repeat(bytes - PNG.length) }];

const base: CreateOptions = { maxPending: 1000, retentionMs: 60_000 };
const now = () => Date.now();

async function makeStore(
  kind: 'memory' | 'redis',
): Promise<{ store: QuestionStore; close(): Promise<void> }> {
  if (kind === 'memory') {
    const store = createMemoryStore();
    return { store, close: () => store.close() };
  }
  return openRedisStore(inject('redisUrl'));
}

describe('mediaBytesOf', () => {
  it('counts UTF-8 bytes of every URL and caption, none without media', () => {
    expect(mediaBytesOf(null)).toBe(0);
    expect(mediaBytesOf([{ kind: 'LINK', url: 'https://x.example/é', caption: 'ü' }])).toBe(20 + 2);
    expect(mediaBytesOf(image(1000))).toBe(1000);
  });
});

for (const kind of ['memory', 'redis'] as const) {
  describe(`quotas (${kind} store)`, () => {
    let h: Awaited<ReturnType<typeof makeStore>>;
    let store: QuestionStore;
    beforeEach(async () => {
      h = await makeStore(kind);
      store = h.store;
    });
    afterEach(() => h.close());

    async function mustCreate(spec: QuestionSpec, o: CreateOptions): Promise<QuestionSpec> {
      expect((await store.create(spec, o)).kind).toBe('created');
      return spec;
    }

    it('pending per principal: exactly the cap, one past it is refused and stores nothing', async () => {
      const o = { ...base, maxPendingPerPrincipal: 3 };
      for (let i = 0; i < 3; i++) await mustCreate(specOf({ askedBy: 'a' }), o);
      const over = specOf({ askedBy: 'a' });
      expect(await store.create(over, o)).toEqual({ kind: 'limit', limit: 'pendingPerPrincipal' });
      expect(await store.get(over.id)).toBeNull();
      expect(await store.pendingIds({})).toHaveLength(3);
      // Another asker is not affected by a's share.
      await mustCreate(specOf({ askedBy: 'b' }), o);
      expect(await store.usage('a')).toEqual({
        pending: 3,
        reserved: 0,
        mediaBytes: 0,
        totalPending: 4,
        totalMediaBytes: 0,
      });
    });

    it('media bytes per principal: exactly the cap, one byte past it is refused', async () => {
      const o = { ...base, maxMediaBytesPerPrincipal: 3000 };
      await mustCreate(specOf({ askedBy: 'a', media: image(1000) }), o);
      await mustCreate(specOf({ askedBy: 'a', media: image(2000) }), o);
      const over = specOf({ askedBy: 'a', media: image(30) });
      expect(await store.create(over, o)).toEqual({ kind: 'limit', limit: 'mediaBytesPerPrincipal' });
      expect(await store.get(over.id)).toBeNull();
      // A question without media still fits: the cap is on bytes, not questions.
      await mustCreate(specOf({ askedBy: 'a' }), o);
      expect(await store.usage('a')).toMatchObject({ pending: 3, mediaBytes: 3000 });
    });

    it('server media budget: exactly the budget across askers, one byte past it is refused', async () => {
      const o = { ...base, maxMediaBytes: 2500 };
      await mustCreate(specOf({ askedBy: 'a', media: image(1000) }), o);
      await mustCreate(specOf({ askedBy: 'b', media: image(1500) }), o);
      const over = specOf({ askedBy: 'c', media: image(30) });
      expect(await store.create(over, o)).toEqual({ kind: 'limit', limit: 'mediaBytes' });
      expect(await store.get(over.id)).toBeNull();
      expect(await store.usage('c')).toEqual({
        pending: 0,
        reserved: 0,
        mediaBytes: 0,
        totalPending: 2,
        totalMediaBytes: 2500,
      });
    });

    it('two askers racing for the last slots: exactly the cap is granted to each', async () => {
      const o = { ...base, maxPendingPerPrincipal: 10 };
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => store.create(specOf({ askedBy: i % 2 ? 'a' : 'b' }), o)),
      );
      expect(results.filter((r) => r.kind === 'created')).toHaveLength(20);
      expect(await store.usage('a')).toMatchObject({ pending: 10 });
      expect(await store.usage('b')).toMatchObject({ pending: 10, totalPending: 20 });
    });

    it('two askers racing for the last bytes of the server budget: never more than the budget', async () => {
      const o = { ...base, maxMediaBytes: 10_000 };
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          store.create(specOf({ askedBy: i % 2 ? 'a' : 'b', media: image(1000) }), o),
        ),
      );
      expect(results.filter((r) => r.kind === 'created')).toHaveLength(10);
      expect((await store.usage('a')).totalMediaBytes).toBe(10_000);
    });

    it('answer, timeout, cancel and the expiry sweep each release the slot and the bytes', async () => {
      const o = { ...base, maxPendingPerPrincipal: 4, maxMediaBytesPerPrincipal: 4000, maxMediaBytes: 4000 };
      const a = await mustCreate(specOf({ askedBy: 'a', media: image(1000) }), o);
      const b = await mustCreate(specOf({ askedBy: 'a', media: image(1000) }), o);
      const c = await mustCreate(specOf({ askedBy: 'a', media: image(1000) }), o);
      const d = await mustCreate(
        specOf({ askedBy: 'a', media: image(1000), createdAt: now() - 5000, timeoutAt: now() - 1 }),
        o,
      );
      expect((await store.create(specOf({ askedBy: 'a' }), o)).kind).toBe('limit');
      const retentionMs = 60_000;
      await store.claim(a.id, {
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'ops',
        now: now(),
        retentionMs,
      });
      expect(await store.usage('a')).toMatchObject({ pending: 3, mediaBytes: 3000, totalMediaBytes: 3000 });
      await store.claim(b.id, { status: 'TIMED_OUT', now: now(), retentionMs });
      expect(await store.usage('a')).toMatchObject({ pending: 2, mediaBytes: 2000 });
      await store.claim(c.id, { status: 'CANCELLED', cancelReason: 'x', now: now(), retentionMs });
      expect(await store.usage('a')).toMatchObject({ pending: 1, mediaBytes: 1000 });
      expect(await store.expireDue(now(), retentionMs, 10)).toBe(1);
      expect((await store.get(d.id))?.status).toBe('TIMED_OUT');
      expect(await store.usage('a')).toEqual({
        pending: 0,
        reserved: 0,
        mediaBytes: 0,
        totalPending: 0,
        totalMediaBytes: 0,
      });
      // A claim that loses (already resolved) releases nothing twice.
      await store.claim(a.id, { status: 'CANCELLED', now: now(), retentionMs });
      expect(await store.usage('a')).toMatchObject({ pending: 0, mediaBytes: 0 });
      for (let i = 0; i < 4; i++) await mustCreate(specOf({ askedBy: 'a', media: image(1000) }), o);
    });

    /** A prepareExternal reservation of `owner` under id `id`, alive for a minute from `now`. */
    const reserve = (owner: string, id: string, cap: number, now = Date.now()) =>
      store.reserve(
        { id, owner, ticketHash: id.padEnd(64, '0'), expiresAt: now + 60_000 },
        { maxPendingPerPrincipal: cap, now },
      );

    it('reservations count against the pending cap: exactly the cap, one past it refused (reserve and create)', async () => {
      const o = { ...base, maxPendingPerPrincipal: 3 };
      await mustCreate(specOf({ askedBy: 'a' }), o);
      expect(await reserve('a', 'r1', 3)).toBe('reserved');
      expect(await reserve('a', 'r2', 3)).toBe('reserved');
      // 1 question + 2 reservations = the cap.
      expect(await reserve('a', 'r3', 3)).toBe('limit');
      expect(await store.create(specOf({ askedBy: 'a' }), o)).toEqual({
        kind: 'limit',
        limit: 'pendingPerPrincipal',
      });
      // The refused reservation stored nothing: asking with it finds no reservation.
      expect(await store.create(specOf({ askedBy: 'a' }), { ...o, preparedId: 'r3' })).toEqual({
        kind: 'no-reservation',
      });
      expect(await store.usage('a')).toMatchObject({ pending: 1, reserved: 2 });
      // Another key's share is its own.
      expect(await reserve('b', 'rb', 3)).toBe('reserved');
      expect(await store.usage('b')).toMatchObject({ pending: 0, reserved: 1 });
    });

    it('a reservation asked becomes its question (it fits at the cap); a resolution frees the place', async () => {
      const o = { ...base, maxPendingPerPrincipal: 2 };
      expect(await reserve('a', 'r1', 2)).toBe('reserved');
      expect(await reserve('a', 'r2', 2)).toBe('reserved');
      const asked = specOf({ askedBy: 'a' });
      await mustCreate(asked, { ...o, preparedId: 'r1' });
      expect(await store.usage('a')).toMatchObject({ pending: 1, reserved: 1 });
      expect(await reserve('a', 'r3', 2)).toBe('limit');
      await store.claim(asked.id, { status: 'CANCELLED', now: Date.now(), retentionMs: 60_000 });
      expect(await reserve('a', 'r3', 2)).toBe('reserved');
      expect(await store.usage('a')).toMatchObject({ pending: 0, reserved: 2 });
    });

    it('an expired reservation stops counting', async () => {
      const o = { ...base, maxPendingPerPrincipal: 1 };
      const past = Date.now() - 120_000;
      // Made two minutes ago for one minute: expired now.
      expect(await reserve('a', 'r1', 1, past)).toBe('reserved');
      expect(await store.usage('a')).toMatchObject({ reserved: 0 });
      await mustCreate(specOf({ askedBy: 'a' }), o);
      expect(await store.create(specOf({ askedBy: 'a' }), { ...o, preparedId: 'r1' })).toEqual({
        kind: 'no-reservation',
      });
    });

    it('racing reservations for the last places: exactly the cap is granted', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => reserve('a', `race${i}`, 5)));
      expect(results.filter((r) => r === 'reserved')).toHaveLength(5);
      expect(await store.usage('a')).toMatchObject({ reserved: 5 });
    });

    it('an idempotent retry returns the first question without counting it again', async () => {
      const o = { ...base, maxPendingPerPrincipal: 1 };
      const first = await mustCreate(specOf({ askedBy: 'a', idempotencyKey: 'k', media: image(500) }), o);
      const again = await store.create(specOf({ askedBy: 'a', idempotencyKey: 'k', media: image(500) }), o);
      expect(again).toMatchObject({ kind: 'existing', question: { id: first.id } });
      expect(await store.usage('a')).toMatchObject({ pending: 1, mediaBytes: 500 });
    });
  });
}
