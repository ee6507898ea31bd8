// The public callback doors (API.md §7). POST, in order: the size cap on the bytes received
// (body and query string) → everything else is the engine's (ticket, verifier, state,
// payload, claim). GET/HEAD only choose a page. Every response carries the strict headers,
// and every malformed ticket (too long, a trailing slash, `..`, no ticket at all, another
// method) gets the one 404 an unknown ticket gets.

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import type { QueryParams } from '../../domain/callback-payload.ts';
import { DomainError } from '../../domain/errors.ts';
import type { CallbackRequest, RateHits } from '../../engine/answers/callbacks.ts';
import { SHORT_LINK_PATH } from '../../engine/answers/short-links.ts';
import type { Interactions } from '../../engine/types.ts';
import { CALLBACK_HEADERS, NOT_FOUND_PAGE, pageAfterPost, renderCallbackPage } from '../callback-pages.ts';
import { sendRestError } from '../errors.ts';
import { rateLimitKey, redisRateLimitStore } from '../rate-limit-store.ts';

export interface CallbackRouteOptions {
  engine: Interactions;
  maxBodyBytes: number;
  rateLimit: { perMinute: number; redis: Redis | Cluster | null; prefix: string };
}

type TicketRequest = FastifyRequest<{ Params: { '*'?: string }; Querystring: QueryParams }>;

export const CALLBACK_PREFIX = '/api/interactions/callback';

/**
 * A wildcard rather than `:ticket`: the router's parameter-length limit (a 414 that echoes the
 * path) and its segment rules must not decide what an invalid ticket looks like; the store does.
 */
const PATHS = [`${CALLBACK_PREFIX}/*`, CALLBACK_PREFIX];

/** The one 404 of the callback doors: the page for GET/HEAD, the JSON body otherwise. */
export function sendTicketNotFound(reply: FastifyReply, method: string): FastifyReply {
  reply.headers(CALLBACK_HEADERS);
  if (method === 'GET' || method === 'HEAD') {
    return reply.status(404).type('text/html; charset=utf-8').send(NOT_FOUND_PAGE);
  }
  return sendRestError(reply, 'NOT_FOUND', 'not found');
}

const WINDOW_MS = 60_000;

/**
 * A POST on a ticket whose size is known and within the caps: it reaches the engine, which
 * counts it against the rate limit in the same store step as the ticket (Redis only). Anything
 * that may be refused before the engine (413, a chunked body) is counted up front as before.
 */
function countedByEngine(req: FastifyRequest, maxBodyBytes: number): boolean {
  if (req.method !== 'POST' || req.routeOptions.url !== `${CALLBACK_PREFIX}/*`) return false;
  if (req.headers['transfer-encoding'] !== undefined) return false;
  return Number(req.headers['content-length'] ?? 0) <= maxBodyBytes && queryLength(req.url) <= maxBodyBytes;
}

/** The headers @fastify/rate-limit sets, for a request the engine counted. */
function rateLimitHeaders(reply: FastifyReply, max: number, hits: RateHits): void {
  const reset = Math.ceil(hits.ttlMs / 1000);
  const over = hits.count > max;
  reply.header('x-ratelimit-limit', max);
  reply.header('x-ratelimit-remaining', over ? 0 : Math.max(0, max - hits.count));
  reply.header('x-ratelimit-reset', reset);
  if (over) reply.header('retry-after', reset);
}

function queryLength(url: string): number {
  const i = url.indexOf('?');
  return i < 0 ? 0 : Buffer.byteLength(url.slice(i + 1));
}

/** A person pressing the page's button (a form navigation), not an API client. */
function fromBrowserForm(req: FastifyRequest): boolean {
  // The Accept test first: it is cheap and API clients rarely ask for HTML.
  if (!(req.headers.accept ?? '').includes('text/html')) return false;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded';
}

type PostResult = Parameters<typeof pageAfterPost>[0];

/** The browser's view of a refused form: closed or invalid get a page; the rest stays JSON. */
function browserResult(err: unknown): PostResult {
  if (err instanceof DomainError && err.code === 'QUESTION_CLOSED') return 'closed';
  if (err instanceof DomainError && err.code === 'BAD_USER_INPUT') return 'invalid';
  throw err;
}

/** The two JSON bodies of a successful POST, serialised once (as Fastify would serialise them). */
const OK_BODY: Record<'answered' | 'already_answered', string> = {
  answered: JSON.stringify({ data: { status: 'answered' } }),
  already_answered: JSON.stringify({ data: { status: 'already_answered' } }),
};

const STATUS_OF_RESULT: Record<PostResult, number> = {
  answered: 200,
  already_answered: 200,
  closed: 409,
  invalid: 400,
};

export async function callbackRoutes(app: FastifyInstance, o: CallbackRouteOptions): Promise<void> {
  const { perMinute, redis, prefix } = o.rateLimit;
  const nameSpace = `${prefix}ratelimit:`;
  const engineCounted = new WeakMap<FastifyRequest, string>();
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: WINDOW_MS,
    // Shared across instances when Redis is configured, so the limit holds per deployment.
    ...(redis ? { store: redisRateLimitStore(redis, nameSpace) } : {}),
    // A POST the engine will count in its own store step is left to it (one round trip),
    // under the key the plugin made for it (the client address, IPv6 by /64).
    allowList: (req, key) => {
      if (redis === null || !countedByEngine(req, o.maxBodyBytes)) return false;
      engineCounted.set(req, key);
      return true;
    },
    keyGenerator: (req) => rateLimitKey(req.ip),
    skipOnError: false,
    errorResponseBuilder: (_req, ctx) =>
      new DomainError('RATE_LIMITED', `too many requests; retry in ${Math.ceil(ctx.ttl / 1000)} s`),
  });

  // Raw bytes: verifiers sign exactly what was sent. The limit counts bytes received.
  app.removeAllContentTypeParsers();
  const raw = { parseAs: 'buffer', bodyLimit: o.maxBodyBytes } as const;
  const keep = (_req: FastifyRequest, body: Buffer, done: (err: null, body: Buffer) => void) =>
    done(null, body);
  app.addContentTypeParser('*', raw, keep);
  // The same parser named for the usual types too: Fastify caches the lookup of a named type,
  // while the catch-all is found by parsing the Content-Type header again on every request.
  app.addContentTypeParser(
    ['application/json', 'application/x-www-form-urlencoded', 'text/plain'],
    raw,
    keep,
  );

  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(CALLBACK_HEADERS);
    if (queryLength(req.url) > o.maxBodyBytes) {
      done(new DomainError('PAYLOAD_TOO_LARGE', 'query string is too large'));
      return;
    }
    done();
  });

  const config = { door: 'callback' } as const;
  for (const url of PATHS) {
    app.post(url, { config }, async (req: TicketRequest, reply: FastifyReply) => {
      const input: CallbackRequest = {
        ticket: req.params['*'] ?? '',
        body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        headers: req.headers,
        query: req.query ?? {},
      };
      const client = engineCounted.get(req);
      if (client !== undefined) {
        input.limit = {
          count: { key: `ratelimit:${client}`, windowMs: WINDOW_MS, max: perMinute },
          seen: (hits) => rateLimitHeaders(reply, perMinute, hits),
        };
      }
      if (!fromBrowserForm(req)) {
        const body = OK_BODY[await o.engine.callback(input)];
        return reply.type('application/json; charset=utf-8').send(body);
      }
      const result = await o.engine.callback(input).catch(browserResult);
      // A person's browser: the page after names the question (one more read, browsers only).
      const after = result === 'invalid' ? undefined : await o.engine.callbackPage(input.ticket);
      return reply
        .status(STATUS_OF_RESULT[result])
        .type('text/html; charset=utf-8')
        .send(pageAfterPost(result, after));
    });

    app.get(url, { config }, async (req: TicketRequest, reply: FastifyReply) => {
      const choice = typeof req.query?.choice === 'string' ? req.query.choice : undefined;
      const { status, html } = renderCallbackPage(await o.engine.callbackPage(req.params['*'] ?? '', choice));
      return reply.status(status).type('text/html; charset=utf-8').send(html);
    });

    // No other method takes a ticket: they all see what an unknown ticket is.
    app.route({
      method: ['PUT', 'DELETE', 'PATCH', 'OPTIONS'],
      url,
      config,
      handler: async (req, reply) => sendTicketNotFound(reply, req.method),
    });
  }

  // A channel's short link (API.md §9): GET (and HEAD) redirects to the long link and changes
  // nothing; every token that names nothing live, and every other method, gets the tickets' 404.
  app.get(`${SHORT_LINK_PATH}/*`, { config }, async (req: TicketRequest, reply: FastifyReply) => {
    const target = locationOf(await o.engine.followLink(req.params['*'] ?? ''));
    if (target === null) return sendTicketNotFound(reply, req.method);
    return reply.status(302).header('location', target).send();
  });
  app.route({
    method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: `${SHORT_LINK_PATH}/*`,
    config,
    handler: async (req, reply) => sendTicketNotFound(reply, req.method),
  });
}

/** The link as a Location header: normalised (percent-encoded) by the URL parser, http(s) only. */
function locationOf(link: string | null): string | null {
  if (link === null || !URL.canParse(link)) return null;
  const url = new URL(link);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}
