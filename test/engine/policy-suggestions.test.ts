// Policy suggestions (API.md §20), on both stores: a group of approvals (same asker, action and
// arguments' shape) is suggested after N approvals by two or more people, none edited, with its
// evidence and an inferred schema; an edit, a rejection or a single reviewer keeps it out;
// adopting one creates the rule in SHADOW.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { ADMIN, AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

const OPS2: Principal = { id: 'ops2', roles: ['operator'], restricted: false };
const SCHEMA = {
  type: 'object',
  properties: { queue: { type: 'string' }, n: { type: 'number' } },
};

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`policy suggestions (${kind})`, () => {
    let set: EngineSet;
    beforeAll(async () => {
      set = await startEngines(kind, 1);
    });
    afterAll(() => set.close());
    const engine = () => set.engines[0]!;

    async function decide(
      name: string,
      args: Record<string, unknown>,
      by: Principal,
      answer: Record<string, unknown> = { decision: 'APPROVED' },
    ) {
      const r = await engine().ask(
        AGENT,
        {
          text: 'may I?',
          format: 'APPROVAL',
          action: { name, arguments: args, argumentsSchema: SCHEMA, editable: true },
        },
        { holdSeconds: 0 },
      );
      await engine().answer(by, r.question.id, answer);
    }

    it('suggests after N approvals by two people, with the evidence and an inferred schema; adopting creates it in SHADOW', async () => {
      await decide('tickets.close', { queue: 'billing', n: 3 }, OPS);
      await decide('tickets.close', { queue: 'sales', n: 7 }, OPS2);
      expect(await engine().policySuggestions.list(ADMIN, 3)).toEqual([]);
      await decide('tickets.close', { queue: 'billing', n: 5 }, OPS);
      const [s, ...rest] = await engine().policySuggestions.list(ADMIN, 3);
      expect(rest).toEqual([]);
      expect(s).toMatchObject({
        asker: 'agent',
        action: 'tickets.close',
        decisions: 3,
        reviewers: ['ops', 'ops2'],
        arguments: {
          type: 'object',
          properties: {
            n: { type: 'number', maximum: 7 },
            queue: { type: 'string', enum: ['billing', 'sales'] },
          },
          required: ['n', 'queue'],
          additionalProperties: false,
        },
      });
      expect(s!.firstAt).toBeLessThanOrEqual(s!.lastAt);
      // At the threshold it shows, one above it does not.
      expect(await engine().policySuggestions.list(ADMIN, 4)).toEqual([]);

      const rule = await engine().policySuggestions.adopt(ADMIN, s!.key);
      expect(rule).toMatchObject({
        effect: 'ALLOW',
        mode: 'SHADOW',
        source: 'store',
        match: { askers: ['agent'] },
      });
      const watched = await engine().ask(
        AGENT,
        {
          text: 'may I?',
          format: 'APPROVAL',
          action: { name: 'tickets.close', arguments: { queue: 'sales', n: 2 } },
        },
        { holdSeconds: 0 },
      );
      expect(watched.question.status).toBe('PENDING');
      expect(watched.question.policyShadow).toEqual([{ ruleId: rule.id, version: '1', effect: 'ALLOW' }]);
    });

    it('not after an edit, a rejection, or approvals by one person only', async () => {
      for (let i = 0; i < 3; i++) await decide('refunds.edited', { queue: 'a', n: 1 }, i % 2 ? OPS : OPS2);
      await decide('refunds.edited', { queue: 'a', n: 1 }, OPS, {
        decision: 'APPROVED',
        arguments: { queue: 'a', n: 0 },
      });
      for (let i = 0; i < 3; i++) await decide('refunds.rejected', { queue: 'a', n: 1 }, i % 2 ? OPS : OPS2);
      await decide('refunds.rejected', { queue: 'a', n: 1 }, OPS, { decision: 'REJECTED' });
      for (let i = 0; i < 3; i++) await decide('refunds.alone', { queue: 'a', n: 1 }, OPS);
      const actions = (await engine().policySuggestions.list(ADMIN, 3)).map((s) => s.action);
      expect(actions).not.toContain('refunds.edited');
      expect(actions).not.toContain('refunds.rejected');
      expect(actions).not.toContain('refunds.alone');
    });

    it('admins only; bounds at and past them; unknown keys', async () => {
      await expect(engine().policySuggestions.list(OPS)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(engine().policySuggestions.list(ADMIN, 1)).rejects.toMatchObject({
        field: 'minDecisions',
      });
      await expect(engine().policySuggestions.list(ADMIN, 2, 0)).rejects.toMatchObject({ field: 'days' });
      await expect(engine().policySuggestions.list(ADMIN, 2, 3651)).rejects.toMatchObject({ field: 'days' });
      expect(Array.isArray(await engine().policySuggestions.list(ADMIN, 2, 3650))).toBe(true);
      await expect(engine().policySuggestions.adopt(ADMIN, 'nope')).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'key',
      });
      await expect(
        engine().policySuggestions.adopt(ADMIN, `s1.30.2.${'0'.repeat(32)}`),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(engine().policySuggestions.adopt(OPS, 'nope')).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
    });
  });
}
