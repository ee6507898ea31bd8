// GET /api/interactions/audit — the audit log (API.md §17) as JSON Lines, oldest first, for
// admins and auditors. Read from the store a batch at a time and written only as fast as the
// client reads (a stream pulled by the socket), so an export of any size holds about one batch
// in memory. The last line is the signed head: the last entry exported and how many there were,
// signed with the receipt key, so an export cut short or edited is detectable offline.

import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { resolvedStatusOf } from '../../domain/audit.ts';
import { DomainError } from '../../domain/errors.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { Interactions } from '../../engine/types.ts';

export const AUDIT_PATH = '/api/interactions/audit';

export interface AuditRouteOptions {
  engine: Interactions;
}

interface AuditQueryString {
  since?: string;
  until?: string;
  question?: string;
  receipts?: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const MAX_QUESTION_ID_CHARS = 200;

function timeParam(name: string, value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `${name} must be an RFC 3339 date-time, e.g. 2026-01-31T12:00:00Z`,
      name,
    );
  }
  return ms;
}

function flagParam(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new DomainError('BAD_USER_INPUT', `${name} must be true or false`, name);
}

/** What a resolved question's receipt line says (only for questions still kept). */
async function receiptLines(engine: Interactions, byId: Map<string, QuestionRecord | null>, ids: string[]) {
  const lines: string[] = [];
  for (const id of ids) {
    const q = byId.get(id);
    const jws = q ? await engine.receipt(q) : null;
    if (jws) lines.push(`${JSON.stringify({ receipt: { questionId: id, jws } })}\n`);
  }
  return lines.join('');
}

export async function auditRoutes(app: FastifyInstance, o: AuditRouteOptions): Promise<void> {
  app.get<{ Querystring: AuditQueryString }>(
    AUDIT_PATH,
    { config: { door: 'audit' } },
    async (req, reply) => {
      const q = req.query;
      const since = timeParam('since', q.since);
      const until = timeParam('until', q.until);
      if (since !== null && until !== null && until <= since) {
        throw new DomainError('BAD_USER_INPUT', 'until must be after since', 'until');
      }
      const question = q.question === undefined || q.question === '' ? null : q.question;
      if (question !== null && question.length > MAX_QUESTION_ID_CHARS) {
        throw new DomainError(
          'BAD_USER_INPUT',
          `question is at most ${MAX_QUESTION_ID_CHARS} characters`,
          'question',
        );
      }
      const withReceipts = flagParam('receipts', q.receipts);
      // Refused before the first byte: a caller without the role gets a plain 403.
      const run = o.engine.audit.exportOf(req.principal, { since, until, questionId: question });
      const { engine } = o;
      async function* lines(): AsyncGenerator<string> {
        for await (const batch of run.entries()) {
          let text = '';
          for (const e of batch) text += `${JSON.stringify(e)}\n`;
          if (withReceipts) {
            const resolved = batch.filter((e) => resolvedStatusOf(e.type) !== null);
            const ids = [...new Set(resolved.map((e) => e.questionId!).filter(Boolean))];
            if (ids.length > 0) {
              const records = await Promise.all(ids.map((id) => engine.get(req.principal, id)));
              const byId = new Map(ids.map((id, i) => [id, records[i] ?? null]));
              text += await receiptLines(engine, byId, ids);
            }
          }
          yield text;
        }
        const end = run.end();
        const signature = await engine.signObject({ typ: 'audit-export', ...end });
        yield `${JSON.stringify({ head: end.head, count: end.count, scope: end.scope, signature })}\n`;
      }
      // highWaterMark 1: one batch is read ahead of the socket, no more.
      return reply
        .header('content-type', 'application/jsonl; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(Readable.from(lines(), { objectMode: false, highWaterMark: 1 }));
    },
  );
}
