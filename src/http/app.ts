// The HTTP server: Fastify with one plugin per door. Each route declares its door; the door
// hook authenticates, routes call one engine method, and one error handler maps the result.

import { createServer } from 'node:http';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import type { Authenticator } from '../auth/authenticate.ts';
import type { SessionAuth } from '../auth/session-cookie.ts';
import { HOLD_MAX_SECONDS } from '../domain/call-args.ts';
import type { Group } from '../domain/groups.ts';
import { SHORT_LINK_PATH } from '../engine/answers/short-links.ts';
import type { Logger } from '../engine/logger.ts';
import type { Push } from '../engine/people/push.ts';
import type { Interactions } from '../engine/types.ts';
import { GRAPHQL_MAX_BODY_BYTES } from '../graphql/yoga.ts';
import { mcpRoutes } from '../mcp/http-plugin.ts';
import type { SessionLimits } from '../mcp/legacy-sessions.ts';
import type { McpToolsOptions } from '../mcp/tools.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { countCallbackRequests } from './callback-metrics.ts';
import { useDoorAuth } from './door-auth.ts';
import { handleError, sendRestError } from './errors.ts';
import { useHostCheck } from './host-check.ts';
import { answerRoutes } from './routes/answer.ts';
import { auditRoutes } from './routes/audit.ts';
import { evidenceRoutes } from './routes/audit-evidence.ts';
import { type AuthRouteOptions, authRoutes } from './routes/auth.ts';
import { CALLBACK_PREFIX, callbackRoutes, sendTicketNotFound } from './routes/callback.ts';
import { channelRoutes } from './routes/channels.ts';
import { graphiqlRoutes } from './routes/graphiql.ts';
import { type GraphQLHandler, graphqlRoutes } from './routes/graphql.ts';
import { healthRoutes } from './routes/health.ts';
import { hookRoutes } from './routes/hooks.ts';
import { inboxRoutes } from './routes/inbox.ts';
import { inboxAppRoutes } from './routes/inbox-app.ts';
import { jwksRoutes } from './routes/jwks.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { pushRoutes } from './routes/push.ts';
import { streamRoutes } from './routes/stream.ts';
import { webauthnRoutes } from './routes/webauthn.ts';
import { useSecurityHeaders } from './security-headers.ts';
import { createShutdownSockets } from './shutdown-sockets.ts';

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
  rateLimit: { perMinute: number; redis: Redis | Cluster | null; prefix: string };
  /** Proxies whose X-Forwarded-For is believed (0: none). */
  trustProxyHops?: number;
  /** Called when the server starts closing, before in-flight requests are awaited. */
  onClosing?: () => Promise<void>;
  /** Options of the MCP tools at /mcp (tests shorten the progress interval). */
  mcp?: McpToolsOptions & { sessionLimits?: SessionLimits };
  /** Which surfaces load (the manifest's `modules`); one switched off is a 404. Absent: on. */
  modules?: Partial<Record<HttpModule, boolean>>;
  /** The server's public base URL: the URL a channel's provider signs (e.g. Twilio). */
  publicBaseUrl?: string | null;
  /** Where the callback doors' outcomes are counted (and what /metrics serves). */
  metricsRegistry?: Metrics;
  /** Serve GET /metrics on this app (the manifest's `metrics` module; default off). */
  metrics?: boolean;
  /** The door policy made /metrics public. */
  metricsPublic?: boolean;
  /** Serve GraphiQL's files under /graphiql/ (Yoga serves its page when its own option is on). */
  graphiql?: boolean;
  /** The receipt keys' public parts, served at /.well-known/jwks.json (absent: not served). */
  jwks?: () => { keys: readonly object[] };
  /** The configured groups and rotations (API.md §22), written into the evidence bundle. */
  groups?: () => readonly Group[];
  /** The Host check (host-check.ts): access control's state and INTERACTIONS_ALLOWED_HOSTS. */
  hostCheck?: { accessControl: boolean; allowedHosts: readonly string[] };
  /** People's sign-in (API.md §19): the session cookie as a credential and the /auth doors. */
  signIn?: Omit<AuthRouteOptions, 'logger' | 'sessions' | 'push'> & { sessions: SessionAuth };
  /** Web Push (API.md §19): the subscription doors; absent: not served. */
  push?: Push;
}

/** The surfaces the manifest can switch off (`callbacks` includes the channel inbound doors). */
export type HttpModule = 'graphql' | 'rest' | 'callbacks' | 'inbox' | 'mcp';

/** Node's HTTP timeouts, set explicitly rather than left to version defaults. */
export const SERVER_TIMEOUTS = {
  requestTimeoutMs: (HOLD_MAX_SECONDS + 60) * 1000,
  keepAliveTimeoutMs: 72_000,
  headersTimeoutMs: 75_000,
} as const;

/** A path under the callback doors or the short links is a ticket, however malformed. */
const isTicketPath = (url: string): boolean =>
  url.startsWith(CALLBACK_PREFIX) || url.startsWith(`${SHORT_LINK_PATH}/`);

/** A path under the callback doors is a ticket, however malformed: it gets the tickets' 404. */
function notFound(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isTicketPath(req.url)) return sendTicketNotFound(reply, req.method);
  return sendRestError(reply, 'NOT_FOUND', 'not found');
}

function createFastify(maxBodyBytes: number, trustProxyHops: number): FastifyInstance {
  return Fastify({
    // Node's own server, made here: long query strings on the callback door must reach its
    // 413, not Node's 431, and the timeouts below must hold (Fastify applies its timeout
    // options only to servers it creates itself).
    serverFactory: (handler) =>
      createServer(
        {
          maxHeaderSize: maxBodyBytes + 16 * 1024,
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
    trustProxy: (_address: string, hop: number) => hop < trustProxyHops,
    // A path that cannot be decoded (`%ff%fe%00`) is answered by us, never with the router's
    // message; under the callback doors it is one more unknown ticket.
    frameworkErrors: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
      if (err.code === 'FST_ERR_BAD_URL') {
        if (isTicketPath(req.url)) return sendTicketNotFound(reply, req.method);
        return sendRestError(reply, 'BAD_USER_INPUT', 'the request path is not valid');
      }
      return sendRestError(reply, 'BAD_USER_INPUT', 'the request is not valid');
    },
  });
}

/**
 * Shutdown, in order: mark closing, let the engine end its held waits and live feeds, and
 * send what is still in flight with Connection: close; every connection ends as soon as it
 * carries no response (see shutdown-sockets.ts), so close() waits for no idle socket.
 */
function closeGracefully(app: FastifyInstance, onClosing: (() => Promise<void>) | undefined): void {
  let closing = false;
  const sockets = createShutdownSockets(app.server);
  app.addHook('preClose', async () => {
    closing = true;
    sockets.closing();
    await onClosing?.();
    // Again for connections opened meanwhile; the server stops accepting right after this hook.
    sockets.closing();
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}

export async function createHttpApp({
  engine,
  auth,
  yoga,
  logger,
  maxBodyBytes,
  streamKeepaliveMs = 15_000,
  rateLimit,
  trustProxyHops = 0,
  onClosing,
  mcp,
  modules = {},
  publicBaseUrl = null,
  metricsRegistry,
  metrics = false,
  metricsPublic = false,
  graphiql = false,
  jwks,
  groups,
  hostCheck = { accessControl: true, allowedHosts: [] },
  signIn,
  push,
}: HttpAppOptions): Promise<FastifyInstance> {
  if (metrics && !metricsRegistry) throw new Error('metrics: true needs a metricsRegistry to serve');
  const app = createFastify(maxBodyBytes, trustProxyHops);
  // Helmet's headers (CSP is set per door: GraphiQL, callback pages and the inbox each need their own).
  await useSecurityHeaders(app);
  closeGracefully(app, onClosing);
  // Before the door hook: a request naming a foreign host is refused before its key is looked at.
  useHostCheck(app, { ...hostCheck, publicBaseUrl });
  app.setErrorHandler((err, req, reply) => handleError(err, req, reply, logger));
  app.setNotFoundHandler(notFound);
  useDoorAuth(app, auth, signIn?.sessions);
  if (metricsRegistry) countCallbackRequests(app, metricsRegistry);

  const on = (m: HttpModule): boolean => modules[m] !== false;
  await app.register(healthRoutes, { engine });
  // A sign-out ends the session's push subscriptions too (API.md §19).
  if (signIn) await app.register(authRoutes, { ...signIn, logger, rateLimit, ...(push ? { push } : {}) });
  if (jwks) await app.register(jwksRoutes, { jwks });
  if (on('graphql')) {
    await app.register(graphqlRoutes, { yoga, engine, maxBodyBytes: GRAPHQL_MAX_BODY_BYTES });
    if (graphiql) await app.register(graphiqlRoutes);
  }
  if (on('rest')) {
    await app.register(answerRoutes, { engine, maxBodyBytes });
    await app.register(streamRoutes, { engine, keepaliveMs: streamKeepaliveMs });
    if (push) await app.register(pushRoutes, { push });
    await app.register(webauthnRoutes, { engine });
    await app.register(auditRoutes, { engine });
    await app.register(hookRoutes, { engine, logger });
    // Groups decide who may answer, so an auditor gets them beside the record (API.md §24.3);
    // delegations are in the audit export itself (DELEGATION_SET / DELEGATION_ENDED).
    const extraFiles = groups
      ? async () => {
          const list = groups();
          return list.length > 0 ? [{ name: 'groups.json', content: { groups: list } }] : [];
        }
      : undefined;
    await app.register(evidenceRoutes, {
      engine,
      ...(jwks ? { jwks } : {}),
      ...(extraFiles ? { extraFiles } : {}),
    });
  }
  if (on('callbacks')) {
    await app.register(callbackRoutes, { engine, maxBodyBytes, rateLimit });
    await app.register(channelRoutes, { engine, maxBodyBytes, publicBaseUrl, rateLimit });
  }
  if (on('inbox')) {
    await app.register(inboxRoutes, { logger });
    await app.register(inboxAppRoutes, {});
  }
  if (on('mcp')) {
    await app.register(mcpRoutes, {
      ...mcp,
      engine,
      maxBodyBytes: GRAPHQL_MAX_BODY_BYTES,
      onError: (err) => logger.warn({ err: err.message }, 'mcp request refused'),
      onInternalError: (err) => logger.error({ err }, 'mcp tool failed'),
    });
  }
  if (metrics && metricsRegistry) {
    await app.register(metricsRoutes, { metrics: metricsRegistry, open: metricsPublic });
  }
  return app;
}
