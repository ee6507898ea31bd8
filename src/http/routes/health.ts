// /health: the process runs (and which version it is). /ready: the store answers (503 otherwise). Always public.
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../domain/version.ts';
import type { Interactions } from '../../engine/types.ts';

export interface HealthRouteOptions {
  engine: Interactions;
}

export async function healthRoutes(app: FastifyInstance, o: HealthRouteOptions): Promise<void> {
  const config = { door: 'health' } as const;
  app.get('/health', { config }, async (_req, reply) => reply.send({ status: 'ok', version: VERSION }));
  app.get('/ready', { config }, async (_req, reply) => {
    const ok = await o.engine.ready();
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'store unreachable' });
  });
}
