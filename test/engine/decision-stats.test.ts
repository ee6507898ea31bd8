// decisionStats (API.md §24) on both stores, over a known set of questions asked and decided on a
// fixed clock: every count, percentile and pending age is exact. Then who may read it, what a
// restricted key sees, bad windows, and the cap on questions read (at it and one past).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestPolicyRule } from '../../src/domain/policy/rule.ts';
import type { Principal } from '../../src/domain/principal.ts';
import {
  ADMIN,
  AGENT,
  AGENT2,
  ALICE,
  type EngineSet,
  OPS,
  type StoreKind,
  startEngines,
} from '../support/engines.ts';

// The engine's clock is ours and stands still between steps; it starts near the real time
// because the memory store keeps resolved questions for their retention on the real clock.
const T0 = Math.floor(Date.now() / 1000) * 1000;
const AUDITOR: Principal = { id: 'aud', roles: ['auditor'], restricted: false };
const rules = [
  manifestPolicyRule(
    { id: 'small-refunds', effect: 'ALLOW', match: { action: 'payments.refund' } },
    'policies[0]',
  ),
];

const confirm = (text: string, extra: Record<string, unknown> = {}) => ({
  text,
  format: 'CONFIRM',
  ...extra,
});

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`decisionStats (${kind})`, () => {
    let set: EngineSet;
    let now = T0;
    const at = (seconds: number) => {
      now = T0 + seconds * 1000;
    };
    const engine = () => set.engines[0]!;
    const ask = async (p: Principal, input: Record<string, unknown>) =>
      (await engine().ask(p, input, { holdSeconds: 0 })).question.id;

    beforeAll(async () => {
      set = await startEngines(kind, 1, { statsMaxQuestions: 9 }, { policies: rules, clock: () => now });
      // Before the window: never counted.
      at(-100);
      await ask(AGENT, confirm('before'));
      // In the window, from T0 to T0+100 s.
      at(0);
      const q1 = await ask(AGENT, confirm('one', { channel: null }));
      at(10);
      const q2 = await ask(AGENT, confirm('two', { audience: 'group:ops' }));
      at(20);
      await ask(AGENT, {
        text: 'refund',
        format: 'APPROVAL',
        action: { name: 'payments.refund', arguments: { amount: 5 } },
      });
      at(30);
      await engine().answer(OPS, q1, true);
      at(40);
      await ask(AGENT2, confirm('times out', { timeoutSeconds: 60 }));
      at(50);
      const q6 = await ask(AGENT2, confirm('cancelled'));
      at(60);
      await engine().cancel(AGENT2, q6);
      at(70);
      await ask(AGENT2, confirm('still pending', { audience: 'group:ops' }));
      at(80);
      await ask(AGENT, confirm('young pending'));
      // At or after the window's end: never counted.
      at(100);
      await ask(AGENT, confirm('at the end'));
      at(130);
      await engine().answer(ADMIN, q2, false);
      at(200);
      expect(await set.stores[0]!.expireDue(now, 3_600_000, 100)).toBe(1);
      at(400);
    });
    afterAll(() => set.close());

    const window = { since: T0, until: T0 + 100_000 };
    const ages = (older: Record<number, number>) =>
      [0, 60, 300, 900, 3600, 14400, 86400].map((s) => ({ olderThanSeconds: s, count: older[s] ?? 0 }));

    it('groups by asker: every count, the decision times and the pending ages are exact', async () => {
      const rows = await engine().decisionStats(AUDITOR, { ...window, groupBy: 'ASKER' });
      expect(rows).toEqual([
        {
          key: 'agent',
          asked: 4,
          decidedByPerson: 2,
          decidedByPolicy: 1,
          decidedByGrant: 0,
          timedOut: 0,
          cancelled: 0,
          pending: 1,
          // Waits: 0 (the rule), 30 (ops), 120 (admin).
          timeToDecisionSeconds: { p50: 30, p90: 120, max: 120 },
          // The young one was asked at T0+80 s, read at T0+400 s: 320 s old.
          pendingByAge: ages({ 0: 1, 60: 1, 300: 1 }),
        },
        {
          key: 'agent2',
          asked: 3,
          decidedByPerson: 0,
          decidedByPolicy: 0,
          decidedByGrant: 0,
          timedOut: 1,
          cancelled: 1,
          pending: 1,
          timeToDecisionSeconds: { p50: null, p90: null, max: null },
          pendingByAge: ages({ 0: 1, 60: 1, 300: 1 }),
        },
      ]);
    });

    it('groups by person, action, group and channel', async () => {
      const by = async (groupBy: 'PERSON' | 'ACTION' | 'GROUP' | 'CHANNEL') =>
        (await engine().decisionStats(OPS, { ...window, groupBy })).map((r) => [
          r.key,
          r.asked,
          r.decidedByPerson,
          r.decidedByPolicy,
          r.timeToDecisionSeconds.max,
        ]);
      expect(await by('PERSON')).toEqual([
        [null, 5, 0, 1, 0],
        ['admin', 1, 1, 0, 120],
        ['ops', 1, 1, 0, 30],
      ]);
      expect(await by('ACTION')).toEqual([
        [null, 6, 2, 0, 120],
        ['payments.refund', 1, 0, 1, 0],
      ]);
      expect(await by('GROUP')).toEqual([
        [null, 5, 1, 1, 30],
        ['ops', 2, 1, 0, 120],
      ]);
      expect(await by('CHANNEL')).toEqual([[null, 7, 2, 1, 120]]);
    });

    it('until defaults to now; a restricted key counts its own audience only', async () => {
      const all = await engine().decisionStats(ADMIN, { since: T0, groupBy: 'CHANNEL' });
      // The question asked at the window's end counts once the window reaches now.
      expect(all.map((r) => r.asked)).toEqual([8]);
      expect(await engine().decisionStats(ALICE, { since: T0 - 1_000_000, groupBy: 'ASKER' })).toEqual([]);
    });

    it('is refused to agents and to nobody with a role; bad windows and groupings are named', async () => {
      await expect(engine().decisionStats(AGENT, { ...window, groupBy: 'ASKER' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      await expect(
        engine().decisionStats({ id: 'x', roles: [], restricted: false }, { ...window, groupBy: 'ASKER' }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(
        engine().decisionStats(OPS, { since: T0, until: T0, groupBy: 'ASKER' }),
      ).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'until',
        message: 'until must be after since',
      });
      await expect(
        engine().decisionStats(OPS, { ...window, groupBy: 'TEAM' as 'ASKER' }),
      ).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'groupBy',
        message: 'groupBy must be one of ASKER, ACTION, PERSON, GROUP, CHANNEL (got "TEAM")',
      });
    });

    it('reads at most statsMaxQuestions questions: 9 in the window is fine, 10 is refused', async () => {
      // Nine questions from T0-100 s on (the one before the window and the eight after).
      const nine = await engine().decisionStats(OPS, { since: T0 - 100_000, groupBy: 'CHANNEL' });
      expect(nine[0]!.asked).toBe(9);
      at(401);
      await ask(AGENT, confirm('the tenth'));
      at(402);
      await expect(
        engine().decisionStats(OPS, { since: T0 - 100_000, groupBy: 'CHANNEL' }),
      ).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'since',
        message: 'the window holds more than 9 questions: narrow since and until',
      });
    });
  });
}
