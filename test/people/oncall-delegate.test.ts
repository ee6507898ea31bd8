// The "done when" for people (API.md §22), on both stores and two instances: a question
// addressed to whoever is on call for payments reaches that person's phone and, while they are
// away, their delegate's too; the delegate — in neither the group nor the audience — sees it and
// answers it "for" them (`onBehalfOf`), and the delegation's end hands it back. Someone neither
// on call nor delegated to still gets NOT_FOUND.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDomainError } from '../../src/domain/errors.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { targetParts } from '../../src/engine/outbox/worker-options.ts';
import type { Push } from '../../src/engine/people/push.ts';
import { AGENT, type EngineSet, type StoreKind, startEngines } from '../support/engines.ts';
import { paymentsDirectory } from '../support/payments-rotation.ts';
import { createTestPush, type SentPush } from '../support/push-engine.ts';

const directory = paymentsDirectory();
const person = (id: string): Principal & { name: string } => ({
  ...directory.withGroups({ id, roles: ['operator'], restricted: true }),
  name: id,
});
const ALICE = person('alice');
const BOB = person('bob'); // not in payments: alice's delegate while she is away
const CAROL = person('carol'); // neither

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'OK',
    (err: unknown) => (isDomainError(err) ? err.code : `thrown: ${String(err)}`),
  );

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`whoever is on call, and their delegate while they are away (${kind}, two instances)`, () => {
    // Tuesday of alice's week on call (a future date: Redis expires what it keeps by real time).
    let now = Date.UTC(2027, 0, 5, 12, 0);
    let set: EngineSet;
    let push: Push;
    const sent: SentPush[] = [];
    beforeAll(async () => {
      set = await startEngines(kind, 2, {}, { directory, clock: () => now });
      const t = createTestPush(set.stores[0]!, () => now, sent);
      push = t.push;
      await t.subscribe(ALICE, 'alice-phone');
      await t.subscribe(BOB, 'bob-phone');
      await t.subscribe(CAROL, 'carol-phone');
    });
    afterAll(() => set.close());

    async function pushed(q: Parameters<Push['notify']>[0]): Promise<string[]> {
      sent.length = 0;
      await push.notify(q, 'asked');
      const store = set.stores[0]!;
      for (const item of await store.outbox.leaseDue(now, 50, 60_000, 'test')) {
        const r = await push.deliver(item, await store.get(item.questionId), targetParts(item.target).name);
        await store.outbox.ack(item.id, item.leaseToken);
        expect(r.kind).toBe('done');
      }
      return sent.map((s) => s.endpoint.slice(s.endpoint.lastIndexOf('/') + 1)).sort();
    }

    const page = async () =>
      (
        await set.engines[0]!.ask(
          AGENT,
          { text: 'Refund 100 EUR?', format: 'CONFIRM', audience: 'oncall:payments' },
          { holdSeconds: 0 },
        )
      ).question;

    it('reaches the person on call only, and nobody else may see it', async () => {
      const q = await page();
      expect(q.routedTo).toBe('alice');
      expect(await pushed(q)).toEqual(['alice-phone']);
      expect(await set.engines[1]!.get(BOB, q.id)).toBeNull();
      expect(await codeOf(set.engines[1]!.answer(BOB, q.id, true))).toBe('NOT_FOUND');
    });

    it('while they are away, their delegate’s phone too; the delegate answers for them on the other instance', async () => {
      await set.engines[0]!.presence.delegations.set(ALICE, { to: 'bob', until: now + 14 * 24 * 3600_000 });
      const q = await page();
      expect(q.routedTo).toBe('alice');
      expect(await pushed(q)).toEqual(['alice-phone', 'bob-phone']);
      const two = set.engines[1]!;
      expect((await two.get(BOB, q.id))?.id).toBe(q.id);
      expect((await two.pending(await two.presence.acting(BOB))).map((p) => p.id)).toContain(q.id);
      expect(await two.get(CAROL, q.id)).toBeNull();
      expect(await codeOf(two.answer(CAROL, q.id, true))).toBe('NOT_FOUND');
      // The feed's SNAPSHOT too (read in parts by the backlog reader).
      const snapshot = [];
      for await (const part of two.backlog(await two.presence.acting(BOB))) snapshot.push(...part);
      // Everything routed to alice while she is away: this question and the one asked before.
      expect(snapshot.map((p) => p.id)).toContain(q.id);
      expect(snapshot.map((p) => p.routedTo)).toEqual(snapshot.map(() => 'alice'));
      // Next week the rotation routes to erin: that is not alice's to hand on.
      const week = 7 * 24 * 3600_000;
      now += week;
      const erins = await page();
      expect(erins.routedTo).toBe('erin');
      expect(await pushed(erins)).toEqual([]);
      const later = (await two.pending(await two.presence.acting(BOB))).map((p) => p.id);
      expect(later).toContain(q.id);
      expect(later).not.toContain(erins.id);
      expect(await two.get(BOB, erins.id)).toBeNull();
      now -= week;
      const answered = await two.answer(BOB, q.id, true);
      expect(answered).toMatchObject({ answeredBy: 'bob', onBehalfOf: 'alice', answer: true });
      const log = (await set.stores[0]!.audit.page({ first: 100, questionId: q.id, types: ['ANSWERED'] }))
        .entries;
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ actor: 'bob', detail: { onBehalfOf: 'alice' } });
    });

    it('once the delegation ends, the delegate is neither notified nor able to answer', async () => {
      await set.engines[0]!.presence.delegations.end(ALICE);
      const q = await page();
      expect(await pushed(q)).toEqual(['alice-phone']);
      expect(await codeOf(set.engines[1]!.answer(BOB, q.id, true))).toBe('NOT_FOUND');
      expect((await set.engines[1]!.answer(ALICE, q.id, true)).onBehalfOf).toBeUndefined();
    });
  });
}
