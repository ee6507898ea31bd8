// The HTTP server: Fastify with one plugin per door. Routes are thin: authenticate by the
// door policy, call one engine method, map the result or error.

import { createServer } from 'node:http';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Authenticator } from '../auth/authenticate.ts';
import { HOLD_MAX_SECONDS } from '../domain/call-args.ts';
import type { Logger } from '../engine/logger.ts';
import type { Interactions } from '../engine/types.ts';
import { mcpRoutes } from '../mcp/http-plugin.ts';
import type { McpToolsOptions } from '../mcp/tools.ts';
import { handleError, sendRestError } from './errors.ts';
import { answerRoutes } from './routes/answer.ts';
import { callbackRoutes } from './routes/callback.ts';
import { type GraphQLHandler, graphqlRoutes } from './routes/graphql.ts';
import { healthRoutes } from './routes/health.ts';
import { inboxRoutes } from './routes/inbox.ts';
import { streamRoutes } from './routes/stream.ts';

export interface HttpAppOptions {
  engine: Interactions;
  auth: Authenticator;
  yoga: GraphQLHandler;
  logger: Logger;
  /** Cap on REST answer bodies (and callback bodies). */
  maxBodyBytes: number;
  /** Keepalive comment interval on the REST stream. */
  streamKeepaliveMs?: number;
  /** The public doors' rate limit; shared through Redis when there is one. */
  rateLimit: { perMinute: number; redis: Redis | null; prefix: string };
  /** Proxies whose X-Forwarded-For is believed (0: none). */
  trustProxyHops?: number;
  /** Called when the server starts closing, before in-flight requests are awaited. */
  onClosing?: () => Promise<void>;
  /** Options of the MCP tools at /mcp (tests shorten the progress interval). */
  mcp?: McpToolsOptions;
}

/** Asks carry media (up to 1 MiB of URIs) and schemas (64 KiB): GraphQL bodies get room for both. */
export const GRAPHQL_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Node's HTTP timeouts, set explicitly rather than left to version defaults. */
export const SERVER_TIMEOUTS = {
  requestTimeoutMs: (HOLD_MAX_SECONDS + 60) * 1000,
  keepAliveTimeoutMs: 72_000,
  headersTimeoutMs: 75_000,
} as const;

export async function createHttpApp(o: HttpAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // Node's own server, made here: long query strings on the callback door must reach its
    // 413, not Node's 431, and the timeouts below must hold (Fastify applies its timeout
    // options only to servers it creates itself).
    serverFactory: (handler) =>
      createServer(
        {
          maxHeaderSize: o.maxBodyBytes + 16 * 1024,
          // A held askUser may take up to the longest hold: never cut it with Node's defaults.
          requestTimeout: SERVER_TIMEOUTS.requestTimeoutMs,
          // Above common load-balancer idle timeouts (60 s), so the proxy closes first.
          keepAliveTimeout: SERVER_TIMEOUTS.keepAliveTimeoutMs,
          headersTimeout: SERVER_TIMEOUTS.headersTimeoutMs,
        },
        handler,
      ),
    // Request URLs carry callback tickets: Fastify's own request logging stays off.
    logger: false,
    return503OnClosing: true,
    // At close, drop the connections idle by then; stated, since our own server gets no default.
    forceCloseConnections: 'idle',
    // Believe X-Forwarded-For for exactly this many hops (proxy-addr's hop-count trust).
    trustProxy: (_address: string, hop: number) => hop < (o.trustProxyHops ?? 0),
  });

  // CSP is set per door (GraphiQL, callback pages and the inbox each need their own).
  await app.register(helmet, { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false });

  // Shutdown, in order: mark closing, let the engine end its held waits and live feeds, and
  // send what is still in flight with Connection: close, so no keep-alive socket outlives the
  // server by its 72 s (Fastify reaps only the sockets already idle when it starts closing).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    await o.onClosing?.();
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });

  app.setErrorHandler((err, _req, reply) => handleError(err, reply, o.logger));
  app.setNotFoundHandler((_req, reply) => sendRestError(reply, 'NOT_FOUND', 'not found'));

  healthRoutes(app, o.engine);
  await app.register(graphqlRoutes, { yoga: o.yoga, maxBodyBytes: GRAPHQL_MAX_BODY_BYTES });
  await app.register(answerRoutes, { engine: o.engine, auth: o.auth, maxBodyBytes: o.maxBodyBytes });
  streamRoutes(app, { engine: o.engine, auth: o.auth, keepaliveMs: o.streamKeepaliveMs ?? 15_000 });
  await app.register(callbackRoutes, {
    engine: o.engine,
    maxBodyBytes: o.maxBodyBytes,
    rateLimit: o.rateLimit,
  });
  await app.register(inboxRoutes, { auth: o.auth, logger: o.logger });
  await app.register(mcpRoutes, {
    ...o.mcp,
    engine: o.engine,
    // MCP takes the same keys as GraphQL, through the same door policy.
    authenticate: (headers) => {
      const r = o.auth.authenticate('graphql', headers);
      return r.ok ? r.principal : null;
    },
    maxBodyBytes: GRAPHQL_MAX_BODY_BYTES,
    onInternalError: (err) => o.logger.error({ err }, 'mcp tool failed'),
  });
  return app;
}
