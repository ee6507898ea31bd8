// Quiet hours and digests (API.md §22) on push, on both stores, driven on a clock the test turns
// (no sleeping): a push due during a person's quiet hours is held — its outbox item is retried
// when they end — and then the held questions go out as one digest, each carried exactly once
// even when two items are released together. A delegate is notified of the person's questions,
// and their own quiet hours hold those too. Items are leased and settled as the worker would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseAt } from '../../src/domain/notification-prefs.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { targetParts } from '../../src/engine/outbox/worker-options.ts';
import type { Push } from '../../src/engine/people/push.ts';
import { AGENT, type EngineSet, type StoreKind, startEngines } from '../support/engines.ts';
import { createTestPush, type SentPush } from '../support/push-engine.ts';

const ADA: Principal & { name: string } = {
  id: 'oidc:ada',
  name: 'Ada',
  roles: ['operator'],
  restricted: true,
};
const BEN: Principal & { name: string } = {
  id: 'oidc:ben',
  name: 'Ben',
  roles: ['operator'],
  restricted: true,
};

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`quiet hours and digests on push (${kind})`, () => {
    // 23:00 UTC: inside 22:00–07:00 quiet hours (a future date: Redis expires what is kept by real time).
    let now = Date.UTC(2027, 0, 5, 23, 0);
    let set: EngineSet;
    let push: Push;
    const sent: SentPush[] = [];
    beforeAll(async () => {
      set = await startEngines(kind, 1, {}, { clock: () => now });
      const t = createTestPush(set.stores[0]!, () => now, sent);
      push = t.push;
      await t.subscribe(ADA, 'ada-phone');
      await t.subscribe(BEN, 'ben-phone');
      await set.engines[0]!.presence.prefs.set(ADA, {
        quietHours: { from: '22:00', to: '07:00', timeZone: 'UTC' },
        digest: 'NONE',
      });
    });
    afterAll(() => set.close());

    const ask = async (audience: string, text: string) => {
      const r = await set.engines[0]!.ask(AGENT, { text, format: 'CONFIRM', audience }, { holdSeconds: 0 });
      return r.question;
    };

    /** Leases every due item and performs it as the worker would; resolves with the results. */
    async function runDue(): Promise<string[]> {
      const store = set.stores[0]!;
      const kinds: string[] = [];
      for (const item of await store.outbox.leaseDue(now, 50, 60_000, 'test')) {
        const q = await store.get(item.questionId);
        const r = await push.deliver(item, q, targetParts(item.target).name);
        kinds.push(r.kind);
        if (r.kind === 'retry') await store.outbox.retry(item.id, item.leaseToken, r.at);
        else await store.outbox.ack(item.id, item.leaseToken);
      }
      return kinds;
    }

    it('holds pushes during quiet hours and sends one digest when they end', async () => {
      const q1 = await ask(ADA.id, 'Deploy A?');
      const q2 = await ask(ADA.id, 'Deploy B?');
      expect(await push.notify(q1, 'asked')).toBe(1);
      expect(await push.notify(q2, 'asked')).toBe(1);
      expect(await runDue()).toEqual(['retry', 'retry']);
      expect(sent).toEqual([]);
      // One minute before the end: still held (nothing is due).
      now = Date.UTC(2027, 0, 6, 6, 59);
      expect(await runDue()).toEqual([]);
      now = Date.UTC(2027, 0, 6, 7, 0);
      expect((await runDue()).sort()).toEqual(['done', 'done']);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        endpoint: 'https://push.example/d/ada-phone',
        payload: { title: '2 questions are waiting', digest: 2 },
      });
      // Outside quiet hours, a push goes out at once, as usual.
      const q3 = await ask(ADA.id, 'Deploy C?');
      await push.notify(q3, 'asked');
      expect(await runDue()).toEqual(['done']);
      expect(sent.at(-1)?.payload).toMatchObject({ id: q3.id, title: 'A question is waiting' });
    });

    it('a question answered while held is left out of the digest; a lone one goes as itself', async () => {
      sent.length = 0;
      now = Date.UTC(2027, 0, 6, 23, 30);
      const q1 = await ask(ADA.id, 'Rotate keys?');
      const q2 = await ask(ADA.id, 'Restart?');
      await push.notify(q1, 'asked');
      await push.notify(q2, 'asked');
      expect(await runDue()).toEqual(['retry', 'retry']);
      await set.engines[0]!.answer(ADA, q2.id, true);
      now = Date.UTC(2027, 0, 7, 7, 0);
      expect(await runDue()).toEqual(['done', 'done']);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.payload).toMatchObject({ id: q1.id, title: 'A question is waiting' });
    });

    it('a delegate is notified of the person’s questions, and only they (restricted keys)', async () => {
      sent.length = 0;
      now = Date.UTC(2027, 0, 7, 12, 0);
      await set.engines[0]!.presence.delegations.set(ADA, { to: BEN.id, until: now + 3600_000 });
      const q = await ask(ADA.id, 'Pay invoice?');
      expect(await push.notify(q, 'asked')).toBe(2);
      expect(await runDue()).toEqual(['done', 'done']);
      expect(sent.map((s) => s.endpoint).sort()).toEqual([
        'https://push.example/d/ada-phone',
        'https://push.example/d/ben-phone',
      ]);
      await set.engines[0]!.presence.delegations.end(ADA);
    });
  });
}

describe('when held notifications are released', () => {
  const at = (h: number, m = 0) => Date.UTC(2027, 0, 5, h, m);
  const quiet = { from: '22:00', to: '07:00', timeZone: 'UTC' };
  it('quiet hours across midnight: held from 22:00 (at) to 07:00 (not at 07:00)', () => {
    expect(releaseAt({ quietHours: quiet, digest: 'NONE' }, at(21, 59))).toBeNull();
    expect(releaseAt({ quietHours: quiet, digest: 'NONE' }, at(22))).toBe(Date.UTC(2027, 0, 6, 7));
    expect(releaseAt({ quietHours: quiet, digest: 'NONE' }, at(6, 59))).toBe(at(7));
    expect(releaseAt({ quietHours: quiet, digest: 'NONE' }, at(7))).toBeNull();
  });
  it('in the person’s time zone (Europe/Paris is UTC+1 in January)', () => {
    const paris = { ...quiet, timeZone: 'Europe/Paris' };
    expect(releaseAt({ quietHours: paris, digest: 'NONE' }, at(21, 30))).toBe(Date.UTC(2027, 0, 6, 6));
    expect(releaseAt({ quietHours: paris, digest: 'NONE' }, at(20, 59))).toBeNull();
  });
  it('HOURLY: the next full hour; DAILY: the end of quiet hours, or 09:00 without them', () => {
    expect(releaseAt({ quietHours: null, digest: 'HOURLY' }, at(10, 15))).toBe(at(11));
    expect(releaseAt({ quietHours: quiet, digest: 'HOURLY' }, at(21, 15))).toBe(Date.UTC(2027, 0, 6, 7));
    expect(releaseAt({ quietHours: null, digest: 'DAILY' }, at(10, 15))).toBe(Date.UTC(2027, 0, 6, 9));
    expect(releaseAt({ quietHours: quiet, digest: 'DAILY' }, at(6, 15))).toBe(at(7));
  });
});
