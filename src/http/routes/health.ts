// /health: the process runs. /ready: the store answers (503 otherwise).
import type { FastifyInstance } from 'fastify';
import type { Interactions } from '../../engine/types.ts';

export function healthRoutes(app: FastifyInstance, engine: Interactions): void {
  app.get('/health', async (_req, reply) => reply.send({ status: 'ok' }));
  app.get('/ready', async (_req, reply) => {
    const ok = await engine.ready();
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'store unreachable' });
  });
}
