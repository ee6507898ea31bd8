// The memory twin of consume.lua and report.lua (API.md §23): the same checks in the same
// order, each one synchronous step, so "at most once" holds in one process.
import { auditViaOf } from '../domain/audit.ts';
import type { ConsumeInput, ConsumeResult, ReportInput, ReportResult } from './execution.ts';
import { consumeFields, reportFields } from './execution.ts';
import { type MemoryTables, record } from './memory-tables.ts';

export function createMemoryExecution(t: MemoryTables) {
  return {
    consume(id: string, input: ConsumeInput): ConsumeResult {
      const e = t.entry(id);
      if (!e) return { kind: 'missing' };
      const r = e.resolution;
      if (r?.status !== 'ANSWERED') return { kind: 'closed', question: record(e) };
      if (r.execution) return { kind: 'used', question: record(e) };
      // A new resolution object: records already handed out keep what they showed.
      e.resolution = { ...r, execution: consumeFields(input.by, input.now) };
      t.audit.append('CONSUMED', id, input.by, auditViaOf(input.by, e.spec.channel), input.audit, input.now);
      return { kind: 'consumed', question: record(e) };
    },

    report(id: string, input: ReportInput): ReportResult {
      const e = t.entry(id);
      if (!e) return { kind: 'missing' };
      const r = e.resolution;
      if (!r?.execution) return { kind: 'unconsumed', question: record(e) };
      if (r.execution.outcome) return { kind: 'duplicate', question: record(e) };
      e.resolution = {
        ...r,
        execution: { ...r.execution, ...reportFields(input.by, input.now, input.report) },
      };
      t.audit.append('EXECUTED', id, input.by, auditViaOf(input.by, e.spec.channel), input.audit, input.now);
      t.outbox.enqueue(id, input.followUps, input.now);
      return { kind: 'reported', question: record(e) };
    },
  };
}
