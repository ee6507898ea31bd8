// The public callback doors (API.md §7). POST, in order: the size cap on the bytes received
// (body and query string) → everything else is the engine's (ticket, verifier, state,
// payload, claim). GET/HEAD only choose a page. Every response carries the strict headers.

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { QueryParams } from '../../domain/callback-payload.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Interactions } from '../../engine/types.ts';
import { CALLBACK_HEADERS, renderCallbackPage } from '../callback-pages.ts';

export interface CallbackRouteOptions {
  engine: Interactions;
  maxBodyBytes: number;
  rateLimit: { perMinute: number; redis: Redis | null; prefix: string };
}

type TicketRequest = FastifyRequest<{ Params: { ticket: string }; Querystring: QueryParams }>;

const PATH = '/api/interactions/callback/:ticket';

function queryLength(url: string): number {
  const i = url.indexOf('?');
  return i < 0 ? 0 : Buffer.byteLength(url.slice(i + 1));
}

export async function callbackRoutes(app: FastifyInstance, o: CallbackRouteOptions): Promise<void> {
  await app.register(rateLimit, {
    max: o.rateLimit.perMinute,
    timeWindow: 60_000,
    // Shared across instances when Redis is configured, so the limit holds per deployment.
    ...(o.rateLimit.redis ? { redis: o.rateLimit.redis, nameSpace: `${o.rateLimit.prefix}ratelimit:` } : {}),
    skipOnError: false,
    errorResponseBuilder: (_req, ctx) =>
      new DomainError('RATE_LIMITED', `too many requests; retry in ${Math.ceil(ctx.ttl / 1000)} s`),
  });

  // Raw bytes: verifiers sign exactly what was sent. The limit counts bytes received.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: o.maxBodyBytes }, (_req, body, done) =>
    done(null, body),
  );

  app.addHook('onRequest', async (req, reply) => {
    reply.headers(CALLBACK_HEADERS);
    if (queryLength(req.url) > o.maxBodyBytes)
      throw new DomainError('PAYLOAD_TOO_LARGE', 'query string is too large');
  });

  app.post(PATH, async (req: TicketRequest, reply: FastifyReply) => {
    const outcome = await o.engine.callback({
      ticket: req.params.ticket,
      body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      headers: req.headers,
      query: req.query ?? {},
    });
    return reply.send({ data: { status: outcome } });
  });

  app.get(PATH, async (req: TicketRequest, reply: FastifyReply) => {
    const { status, html } = renderCallbackPage(await o.engine.callbackPage(req.params.ticket));
    return reply.status(status).type('text/html; charset=utf-8').send(html);
  });
}
