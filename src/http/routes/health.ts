// /health: the process runs. /ready: the store answers (503 otherwise). Always public.
import type { FastifyInstance } from 'fastify';
import type { Interactions } from '../../engine/types.ts';

export interface HealthRouteOptions {
  engine: Interactions;
}

export async function healthRoutes(app: FastifyInstance, o: HealthRouteOptions): Promise<void> {
  const config = { door: 'health' } as const;
  app.get('/health', { config }, async (_req, reply) => reply.send({ status: 'ok' }));
  app.get('/ready', { config }, async (_req, reply) => {
    const ok = await o.engine.ready();
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'store unreachable' });
  });
}
