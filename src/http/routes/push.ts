// The Web Push doors (API.md §19): GET /api/interactions/push/key gives the VAPID public key a
// browser subscribes with; POST /api/interactions/push/subscriptions stores the browser's
// subscription for the caller, DELETE removes it. Any authenticated principal may subscribe (a
// signed-in person, or a key's holder): pushes go only to questions that principal may see, and
// only while what authorised the request (its session, its key) still does.
import type { FastifyInstance } from 'fastify';
import { parseJsonText } from '../../domain/json-text.ts';
import type { Push } from '../../engine/people/push.ts';
import { useTextBodies } from '../json-body.ts';
import { pushGrantOf } from '../push-grant.ts';

export interface PushRouteOptions {
  push: Push;
  /** A browser's subscription is well under 4 KiB. */
  maxBodyBytes?: number;
}

const bodyOf = (body: unknown): unknown => (typeof body === 'string' ? parseJsonText(body) : body);

export async function pushRoutes(app: FastifyInstance, o: PushRouteOptions): Promise<void> {
  useTextBodies(app, o.maxBodyBytes ?? 8 * 1024);
  const door = { config: { door: 'answer' as const } };
  app.get('/api/interactions/push/key', door, async (_req, reply) =>
    reply.header('cache-control', 'no-store').send({ publicKey: o.push.publicKey }),
  );
  app.post('/api/interactions/push/subscriptions', door, async (req, reply) => {
    await o.push.subscribe(req.principal, pushGrantOf(req.headers, req.principal), bodyOf(req.body));
    return reply.status(201).send({ subscribed: true });
  });
  // A test notification to the caller's own devices (the inbox's settings panel).
  app.post('/api/interactions/push/test', door, async (req, reply) =>
    reply.send({ sent: await o.push.test(req.principal) }),
  );
  app.delete('/api/interactions/push/subscriptions', door, async (req, reply) => {
    const removed = await o.push.unsubscribe(req.principal, bodyOf(req.body));
    return reply.send({ removed });
  });
}
