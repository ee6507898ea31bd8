// The asker of an APPROVAL never decides it unless it holds admin (API.md §2 amended), on both
// stores: an asker key with operator rights is refused alone and in a quorum, its CONFIRM is not
// an approval, and an admin asker may decide its own (the one-key quick start).
import { afterEach, describe, expect, it } from 'vitest';
import { isDomainError } from '../../src/domain/errors.ts';
import { ADMIN, type EngineSet, startEngines } from '../support/engines.ts';

const codeOf = (err: unknown): string => (isDomainError(err) ? err.code : `thrown: ${String(err)}`);

for (const kind of ['memory', 'redis'] as const) {
  describe(`the asker of an approval (${kind})`, () => {
    let set: EngineSet;
    afterEach(() => set.close());

    it('an asker with operator rights never approves its own APPROVAL, on its own or in a quorum; an admin asker may', async () => {
      set = await startEngines(kind);
      const engine = set.engines[0]!;
      const read = async (id: string) => (await engine.get(ADMIN, id))!;
      const both = { id: 'agent-ops', roles: ['agent', 'operator'] as const, restricted: false };
      const mine = await engine.ask(
        both,
        {
          text: 'Refund?',
          format: 'APPROVAL',
          action: { name: 'payments.refund', arguments: { amount: 1 } },
        },
        { holdSeconds: 0 },
      );
      expect(await engine.answer(both, mine.question.id, { decision: 'APPROVED' }).catch(codeOf)).toBe(
        'FORBIDDEN',
      );
      const quorum = await engine.ask(
        both,
        {
          text: 'Refund?',
          format: 'APPROVAL',
          action: { name: 'payments.refund', arguments: { amount: 2 } },
          quorum: { approvals: 2 },
        },
        { holdSeconds: 0 },
      );
      expect(await engine.answer(both, quorum.question.id, { decision: 'APPROVED' }).catch(codeOf)).toBe(
        'FORBIDDEN',
      );
      expect((await read(quorum.question.id)).votes ?? []).toHaveLength(0);
      // Other formats are not approvals: the asker may answer its own CONFIRM.
      const confirm = await engine.ask(both, { text: 'Go?', format: 'CONFIRM' }, { holdSeconds: 0 });
      expect(await engine.answer(both, confirm.question.id, true).then(() => 'ok', codeOf)).toBe('ok');
      const admins = await engine.ask(
        ADMIN,
        {
          text: 'Refund?',
          format: 'APPROVAL',
          action: { name: 'payments.refund', arguments: { amount: 3 } },
        },
        { holdSeconds: 0 },
      );
      expect(
        await engine.answer(ADMIN, admins.question.id, { decision: 'APPROVED' }).then(() => 'ok', codeOf),
      ).toBe('ok');
    });
  });
}
