// On-call is read again at each escalation step (API.md §18, §22), on both stores, with a fixed
// clock: a question for `oncall:sre` asked a minute before the handover is routed to the person
// on duty then; the step that fires before the handover reminds them, the step after it
// reminds the next one, and each fired step records who it reached.
import { afterEach, describe, expect, it } from 'vitest';
import { parseGroups } from '../../src/domain/groups.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { createEscalationSteps } from '../../src/engine/outbox/escalation-steps.ts';
import { targetParts } from '../../src/engine/outbox/worker.ts';
import { createDirectory } from '../../src/engine/people/directory.ts';
import { AGENT, type EngineSet, SETTINGS, startEngines } from '../support/engines.ts';

const directory = createDirectory(
  parseGroups([
    {
      id: 'sre',
      members: ['erin', 'frank'],
      rotation: { every: '1d', startsAt: '2026-03-02T09:00:00Z', order: ['erin', 'frank'], timeZone: 'UTC' },
    },
  ]),
);

for (const kind of ['memory', 'redis'] as const) {
  describe(`on-call at each escalation step (${kind})`, () => {
    let set: EngineSet;
    afterEach(() => set.close());

    it('routes the ask and each fired step to whoever is on duty then', async () => {
      let now = Date.parse('2026-03-03T08:59:30Z');
      set = await startEngines(kind, 1, {}, { directory, clock: () => now });
      const [engine, store] = [set.engines[0]!, set.stores[0]!];
      const reminded: (string | null | undefined)[] = [];
      const escalate = createEscalationSteps({
        store,
        channels: { names: () => new Set(), deliver: async () => ({}) } as never,
        logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
        clock: () => now,
        publicBaseUrl: SETTINGS.publicBaseUrl,
        directory,
        push: {
          async remind(q: QuestionRecord) {
            reminded.push(q.routedTo);
          },
        },
      });
      const tick = async (iso: string) => {
        now = Date.parse(iso);
        await store.escalateDue(now, 100);
        for (const item of await store.outbox.leaseDue(now, 100, 60_000, 'test')) {
          const { kind: k, name } = targetParts(item.target);
          if (k !== 'escalate') continue;
          await escalate(item, await store.get(item.questionId), name);
          await store.outbox.ack(item.id, item.leaseToken);
        }
      };

      const { question: q } = await engine.ask(
        AGENT,
        {
          text: 'Disk full on db-1',
          format: 'CONFIRM',
          audience: 'oncall:sre',
          escalation: [
            { afterSeconds: 10, action: 'REMIND' },
            { afterSeconds: 60, action: 'REMIND' },
          ],
        },
        { holdSeconds: 0 },
      );
      expect(q.routedTo).toBe('erin');
      await tick('2026-03-03T08:59:40Z');
      expect(reminded).toEqual(['erin']);
      await tick('2026-03-03T09:00:30Z');
      expect(reminded).toEqual(['erin', 'frank']);
      const steps = await engine.escalations((await store.get(q.id))!);
      expect(steps.map((s) => [s.outcome, s.routedTo])).toEqual([
        ['DELIVERED', 'erin'],
        ['DELIVERED', 'frank'],
      ]);
      // The ask-time routing stays on the record; both people may answer (members of sre).
      expect((await store.get(q.id))!.routedTo).toBe('erin');
    });
  });
}
