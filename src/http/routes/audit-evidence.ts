// GET /api/interactions/audit/evidence — the evidence bundle (API.md §24) for admins and
// auditors: a zip streamed as it is written (see evidence-bundle.ts), signed by the server
// because the signing key never leaves it. `since` and `until` are optional: without them the
// bundle covers the whole retained log.
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import type { Interactions } from '../../engine/types.ts';
import { type EvidenceFile, evidenceBundle } from '../evidence-bundle.ts';
import { AUDIT_PATH, timeParam } from './audit.ts';

export const EVIDENCE_PATH = `${AUDIT_PATH}/evidence`;

export interface EvidenceRouteOptions {
  engine: Interactions;
  /** The receipt keys' public parts; absent: the server signs nothing and the list is empty. */
  jwks?: () => { keys: readonly object[] };
  /** Files the deployment adds (its groups and delegations, API.md §22). */
  extraFiles?: () => Promise<readonly EvidenceFile[]>;
  clock?: () => number;
}

export async function evidenceRoutes(app: FastifyInstance, o: EvidenceRouteOptions): Promise<void> {
  const clock = o.clock ?? Date.now;
  app.get<{ Querystring: { since?: string; until?: string } }>(
    EVIDENCE_PATH,
    { config: { door: 'audit' } },
    async (req, reply) => {
      const since = timeParam('since', req.query.since);
      const until = timeParam('until', req.query.until);
      if (since !== null && until !== null && until <= since) {
        throw new DomainError('BAD_USER_INPUT', 'until must be after since', 'until');
      }
      const now = clock();
      // Refused before the first byte: a caller without the role gets a plain 403.
      const body = evidenceBundle({
        engine: o.engine,
        principal: req.principal,
        since,
        until,
        jwks: o.jwks ?? (() => ({ keys: [] })),
        now: () => now,
        ...(o.extraFiles ? { extraFiles: o.extraFiles } : {}),
      });
      const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="evidence-${stamp}.zip"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}
