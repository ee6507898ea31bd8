// GET /api/interactions/audit — the audit log (API.md §17) as JSON Lines, oldest first, for
// admins and auditors. Read from the store a batch at a time and written only as fast as the
// client reads (a stream pulled by the socket), so an export of any size holds about one batch
// in memory. The last line is the signed head: the last entry exported and how many there were,
// signed with the receipt key, so an export cut short or edited is detectable offline.

import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import type { Interactions } from '../../engine/types.ts';
import { auditExport } from '../audit-export.ts';

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

export function timeParam(name: string, value: string | undefined): number | null {
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
      const run = auditExport(o.engine, req.principal, { since, until, questionId: question }, withReceipts);
      // highWaterMark 1: one batch is read ahead of the socket, no more.
      return reply
        .header('content-type', 'application/jsonl; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(Readable.from(run.lines, { objectMode: false, highWaterMark: 1 }));
    },
  );
}
