// The audit export's lines (API.md §17), shared by GET /api/interactions/audit and the evidence
// bundle (§24): the entries as JSON Lines, a batch at a time, optionally each resolved
// question's receipt after its batch, and the signed head last.
import { resolvedStatusOf } from '../domain/audit.ts';
import type { Principal } from '../domain/principal.ts';
import type { Interactions } from '../engine/types.ts';
import type { AuditExportEnd, AuditFilter } from '../engine/views/audit.ts';

export interface AuditExportRun {
  /** The export's lines, in chunks of about one store batch. */
  lines: AsyncGenerator<string>;
  /** What was exported, once `lines` is done. */
  end(): AuditExportEnd;
}

/** Refuses a caller without the role at once, before the first line is asked for. */
export function auditExport(
  engine: Interactions,
  principal: Principal,
  filter: Omit<AuditFilter, 'types'>,
  withReceipts: boolean,
): AuditExportRun {
  const run = engine.audit.exportOf(principal, filter);
  async function* lines(): AsyncGenerator<string> {
    for await (const batch of run.entries()) {
      let text = '';
      for (const e of batch) text += `${JSON.stringify(e)}\n`;
      if (withReceipts) {
        const ids = resolvedIds(batch);
        const records = await Promise.all(ids.map((id) => engine.get(principal, id)));
        for (const [i, id] of ids.entries()) {
          const q = records[i];
          const jws = q ? await engine.receipt(q) : null;
          if (jws) text += `${JSON.stringify({ receipt: { questionId: id, jws } })}\n`;
        }
      }
      yield text;
    }
    const end = run.end();
    const signature = await engine.signObject({ typ: 'audit-export', ...end });
    yield `${JSON.stringify({ head: end.head, count: end.count, scope: end.scope, signature })}\n`;
  }
  return { lines: lines(), end: run.end };
}

/** The questions a batch of entries resolves, each once, in order. */
export function resolvedIds(batch: readonly { type: string; questionId: string | null }[]): string[] {
  const ids = new Set<string>();
  for (const e of batch) {
    if (e.questionId && resolvedStatusOf(e.type) !== null) ids.add(e.questionId);
  }
  return [...ids];
}
