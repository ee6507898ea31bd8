// GET /metrics (API.md §14) on the main port: the `metrics` door, which takes a key by
// default; the exposition shows operational figures, so an operator or admin key is needed
// unless the policy made the door public.
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { hasRole } from '../../domain/principal.ts';
import type { Metrics } from '../../metrics/metrics.ts';

export interface MetricsRouteOptions {
  metrics: Metrics;
  /** The door policy made /metrics public: any caller may scrape. */
  open: boolean;
}

export async function metricsRoutes(app: FastifyInstance, o: MetricsRouteOptions): Promise<void> {
  app.get('/metrics', { config: { door: 'metrics' } }, async (req, reply) => {
    if (!o.open && !hasRole(req.principal, 'operator')) {
      throw new DomainError('FORBIDDEN', 'reading metrics needs the operator or admin role');
    }
    const { contentType, body } = await o.metrics.render();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
}
