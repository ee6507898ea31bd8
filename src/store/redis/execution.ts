// consume.lua and report.lua as the store's `consume` and `report` (API.md §23).
import { consumeFields, reportFields } from '../execution.ts';
import { OUTBOX_ITEM_TTL_MS } from '../outbox.ts';
import type { QuestionStore } from '../types.ts';
import { fromTriple } from './script-io.ts';
import type { Reply, ScriptRunner } from './scripts.ts';

export function createRedisExecution(run: ScriptRunner): Pick<QuestionStore, 'consume' | 'report'> {
  return {
    async consume(id, input) {
      const reply = (await run('consume', [
        id,
        input.by,
        input.now,
        JSON.stringify(consumeFields(input.by, input.now)),
        JSON.stringify(input.audit),
      ])) as Reply[];
      switch (reply[0]) {
        case 'missing':
          return { kind: 'missing' };
        case 'consumed':
          return { kind: 'consumed', question: fromTriple(reply, 1) };
        case 'used':
          return { kind: 'used', question: fromTriple(reply, 1) };
        default:
          return { kind: 'closed', question: fromTriple(reply, 1) };
      }
    },

    async report(id, input) {
      const reply = (await run('report', [
        id,
        input.by,
        input.now,
        JSON.stringify(reportFields(input.by, input.now, input.report)),
        JSON.stringify(input.audit),
        input.followUps.join('\n'),
        OUTBOX_ITEM_TTL_MS,
      ])) as Reply[];
      switch (reply[0]) {
        case 'missing':
          return { kind: 'missing' };
        case 'reported':
          return { kind: 'reported', question: fromTriple(reply, 1) };
        case 'duplicate':
          return { kind: 'duplicate', question: fromTriple(reply, 1) };
        default:
          return { kind: 'unconsumed', question: fromTriple(reply, 1) };
      }
    },
  };
}
