// Delivery deliveries on both stores: saved with the question, indexed by ref and by recipient
// within the question's channel, gone with the question.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { MAX_DELIVERY_BYTES, RECIPIENT_INDEX_DEPTH } from '../../src/store/deliveries.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { openRedisStore, specOf } from '../support/fixtures.ts';

const opts = { maxPending: 1000, retentionMs: 60_000 };

for (const kind of ['memory', 'redis'] as const) {
  describe(`channel deliveries (${kind})`, () => {
    let store: QuestionStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      if (kind === 'memory') {
        store = createMemoryStore();
        close = () => store.close();
      } else {
        ({ store, close } = openRedisStore(inject('redisUrl')));
      }
    });
    afterEach(() => close());

    async function ask(channel: string | null, createdAt = Date.now()): Promise<string> {
      const spec = specOf({ channel, createdAt });
      const r = await store.create(spec, opts);
      expect(r.kind).toBe('created');
      return spec.id;
    }

    it('nothing is recorded before save; after it the delivery reads back and its ref resolves', async () => {
      const id = await ask('ops-slack');
      expect(await store.deliveries.get(id)).toBeUndefined();
      expect(await store.deliveries.save(id, { ref: 'K7', recipient: 'C1', ts: '1.2' })).toBe(true);
      expect(await store.deliveries.get(id)).toEqual({
        delivery: { ref: 'K7', recipient: 'C1', ts: '1.2' },
        deliveredAt: null,
      });
      expect(await store.deliveries.byRef('ops-slack', 'K7')).toBe(id);
      // Within its own channel only.
      expect(await store.deliveries.byRef('other', 'K7')).toBeNull();
      expect(await store.deliveries.latestFor('other', 'C1')).toBeNull();
    });

    it('getWithDelivery reads the question and its delivery (own channel or a REROUTE place) as the two reads do', async () => {
      const id = await ask('ops-slack');
      expect(await store.getWithDelivery(id, 'ops-slack')).toEqual({
        question: await store.get(id),
        delivery: undefined,
      });
      await store.deliveries.save(id, { ref: 'K8', ts: '1.3' }, 1234);
      await store.deliveries.save(id, { ref: 'P1' }, 5678, 'pager');
      for (const place of [undefined, 'ops-slack', 'pager', 'nowhere']) {
        expect(await store.getWithDelivery(id, place)).toEqual({
          question: await store.get(id),
          delivery: await store.deliveries.get(id, place),
        });
      }
      expect((await store.getWithDelivery(id, 'pager'))?.delivery).toEqual({
        delivery: { ref: 'P1' },
        deliveredAt: 5678,
      });
      expect(await store.getWithDelivery('no-such-question', 'ops-slack')).toBeNull();
    });

    it('a failed delivery is recorded as null, distinct from nothing recorded', async () => {
      const id = await ask('ops-slack');
      expect(await store.deliveries.save(id, null)).toBe(true);
      expect(await store.deliveries.get(id)).toEqual({ delivery: null, deliveredAt: null });
    });

    it('refuses a question without a channel or one that is gone', async () => {
      const id = await ask(null);
      expect(await store.deliveries.save(id, { ref: 'x' })).toBe(false);
      expect(await store.deliveries.get(id)).toBeUndefined();
      expect(await store.deliveries.save('no-such-question', { ref: 'x' })).toBe(false);
    });

    it('latestFor is the newest pending question to that recipient, skipping resolved ones', async () => {
      const t0 = Date.now();
      const older = await ask('sms', t0);
      const newer = await ask('sms', t0 + 1);
      // Saved out of order: the newer ask was delivered first.
      await store.deliveries.save(newer, { recipient: '+15550001' });
      await store.deliveries.save(older, { recipient: '+15550001' });
      expect(await store.deliveries.latestFor('sms', '+15550001')).toEqual({ id: newer, pending: 2 });
      await store.claim(newer, {
        status: 'CANCELLED',
        cancelReason: null,
        now: Date.now(),
        retentionMs: 60_000,
      });
      expect(await store.deliveries.latestFor('sms', '+15550001')).toEqual({ id: older, pending: 1 });
      await store.claim(older, {
        status: 'CANCELLED',
        cancelReason: null,
        now: Date.now(),
        retentionMs: 60_000,
      });
      expect(await store.deliveries.latestFor('sms', '+15550001')).toBeNull();
      expect(await store.deliveries.latestFor('sms', '+15550002')).toBeNull();
    });

    it('the delivery time reads back; latestFor by a time counts only questions delivered by then', async () => {
      const t0 = Date.now();
      const first = await ask('sms', t0);
      const second = await ask('sms', t0 + 1);
      const untimed = await ask('sms', t0 + 2);
      await store.deliveries.save(first, { recipient: '+15550003' }, t0 + 100);
      await store.deliveries.save(second, { recipient: '+15550003' }, t0 + 200);
      expect((await store.deliveries.get(second))?.deliveredAt).toBe(t0 + 200);
      // At the delivery time itself the question counts; a millisecond before, it does not.
      expect(await store.deliveries.latestFor('sms', '+15550003', t0 + 200)).toEqual({
        id: second,
        pending: 2,
      });
      expect(await store.deliveries.latestFor('sms', '+15550003', t0 + 199)).toEqual({
        id: first,
        pending: 1,
      });
      expect(await store.deliveries.latestFor('sms', '+15550003', t0 + 99)).toBeNull();
      // A delivery saved without a time (before delivery times were kept) counts at any time.
      await store.deliveries.save(untimed, { recipient: '+15550003' });
      expect(await store.deliveries.latestFor('sms', '+15550003', t0 + 99)).toEqual({
        id: untimed,
        pending: 1,
      });
      expect(await store.deliveries.latestFor('sms', '+15550003')).toEqual({ id: untimed, pending: 3 });
    });

    it(`the recipient index keeps the newest ${RECIPIENT_INDEX_DEPTH}`, async () => {
      const t0 = Date.now();
      const ids: string[] = [];
      for (let i = 0; i <= RECIPIENT_INDEX_DEPTH; i++) {
        const id = await ask('sms', t0 + i);
        ids.push(id);
        await store.deliveries.save(id, { recipient: 'r' });
      }
      for (const id of ids.slice(1)) {
        await store.claim(id, {
          status: 'CANCELLED',
          cancelReason: null,
          now: Date.now(),
          retentionMs: 60_000,
        });
      }
      // The oldest fell out of the index when the 101st arrived.
      expect(await store.deliveries.latestFor('sms', 'r')).toBeNull();
    });

    it(`a delivery of ${MAX_DELIVERY_BYTES} bytes is kept; one byte more is refused and changes nothing`, async () => {
      const id = await ask('hook');
      const pad = (n: number) => ({ p: 'x'.repeat(n - JSON.stringify({ p: '' }).length) });
      expect(await store.deliveries.save(id, pad(MAX_DELIVERY_BYTES))).toBe(true);
      await expect(store.deliveries.save(id, { ...pad(MAX_DELIVERY_BYTES + 1), ref: 'z' })).rejects.toThrow(
        RangeError,
      );
      expect(await store.deliveries.byRef('hook', 'z')).toBeNull();
      expect((await store.deliveries.get(id))?.delivery).toEqual(pad(MAX_DELIVERY_BYTES));
    });
  });
}
