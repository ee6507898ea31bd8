// The GraphQL server: Yoga over the Pothos schema at /graphql (queries, mutations, and
// subscriptions over SSE in distinct-connections mode) and, when enabled, /graphql/stream (the
// graphql-sse single-connection protocol, on in the app's default config). The HTTP layer mounts it and serves /health and /ready.
import { createYoga, useExecutionCancellation, type YogaLogger, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticate.ts';
import type { SessionAuth } from '../auth/session-cookie.ts';
import { callerTraceOf } from '../domain/trace.ts';
import type { Interactions } from '../engine/types.ts';
import { createRequestAuth } from './auth.ts';
import type { GraphQLContext } from './builder.ts';
import { createMaskError, useValidationErrorCode } from './errors.ts';
import { GRAPHIQL_OPTIONS, renderGraphiQLPage } from './graphiql-page.ts';
import { type HeldCall, useHeldCalls } from './held-calls.ts';
import { useGraphQLLimits } from './limits.ts';
import { schema } from './schema.ts';
import { useSharedResults } from './shared-results.ts';
import { useSingleConnectionStream } from './single-connection.ts';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from './stream-tokens.ts';

export const GRAPHQL_ENDPOINT = '/graphql';
/** Asks carry media (up to 1 MiB of URIs) and schemas (64 KiB). */
export const GRAPHQL_MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Yoga's built-in health check answers any URL ending with its endpoint and cannot be turned
 * off; a serialized URL never ends with a space, so this one never matches. The HTTP layer
 * serves /health and /ready.
 */
const NO_HEALTH_CHECK = '/ no yoga health check';

export interface GraphQLServerOptions {
  engine: Interactions;
  authenticator: Authenticator;
  /** Signed-in people's session cookies (API.md §19); absent: keys only. */
  sessions?: SessionAuth;
  logger: Logger;
  /**
   * Serve GraphiQL's page on GET /graphql with Accept: text/html (default false). The page
   * loads its files from /graphiql/ on this origin (graphiql-page.ts; the HTTP layer serves them).
   */
  graphiql?: boolean;
  /**
   * Serve the graphql-sse single-connection mode at /graphql/stream (default false here; the
   * app's config turns it on). Its streams are bounded by `streamLimits`.
   */
  singleConnectionStream?: boolean;
  /** Bounds of /graphql/stream (defaults: DEFAULT_STREAM_LIMITS); tests shorten them. */
  streamLimits?: Partial<StreamLimits>;
  /** Browser origins allowed cross-site (`['*']` for any); empty or absent: none. */
  corsOrigins?: readonly string[];
  /**
   * The HTTP layer has read every body as text under GRAPHQL_MAX_BODY_BYTES before Yoga sees
   * it (the Fastify route does). Yoga's own cap would then pipe each body's stream through a
   * byte-counting transform a second time; standing alone (the default) Yoga keeps its cap.
   */
  bodiesBoundedUpstream?: boolean;
}

/** Server context: whatever the HTTP layer passes along (e.g. Fastify's `{ req, reply }`). */
// biome-ignore lint/suspicious/noExplicitAny: Yoga's own constraint for server contexts.
export type GraphQLServerContext = Record<string, any>;

export type GraphQLServer = YogaServerInstance<GraphQLServerContext, GraphQLContext>;

/** Yoga's own log lines, quietly: they go to pino at debug (masked errors are logged by errors.ts). */
function quietLogger(logger: Logger): YogaLogger {
  const log = logger.child({ component: 'graphql' });
  const at =
    (level: 'debug' | 'warn') =>
    (...args: unknown[]): void => {
      const [first, ...rest] = args;
      if (first instanceof Error) log[level]({ err: first }, 'yoga');
      else log[level]([first, ...rest].map(String).join(' '));
    };
  return { debug: at('debug'), info: at('debug'), warn: at('warn'), error: at('debug') };
}

export function createGraphQLServer(opts: GraphQLServerOptions): GraphQLServer {
  const { engine, authenticator, logger } = opts;
  const auth = createRequestAuth(authenticator, opts.sessions);
  const singleConnection =
    opts.singleConnectionStream === true
      ? [useSingleConnectionStream(auth.principalOf, { ...DEFAULT_STREAM_LIMITS, ...opts.streamLimits })]
      : [];
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    graphiql: opts.graphiql === true ? GRAPHIQL_OPTIONS : false,
    renderGraphiQL: renderGraphiQLPage,
    landingPage: false,
    // Keys travel in headers, never cookies: cross-site callers get no credentials mode.
    cors: opts.corsOrigins?.length
      ? { origin: opts.corsOrigins.includes('*') ? '*' : [...opts.corsOrigins], credentials: false }
      : false,
    healthCheckEndpoint: NO_HEALTH_CHECK,
    maxRequestBodySize: opts.bodiesBoundedUpstream === true ? false : GRAPHQL_MAX_BODY_BYTES,
    logging: quietLogger(logger),
    maskedErrors: { maskError: createMaskError(logger) },
    context: ({ request, heldCall }): GraphQLContext => ({
      principal: auth.principalOf(request),
      engine,
      signal: request.signal,
      heldCall: heldCall as HeldCall | undefined,
      trace: callerTraceOf((name) => request.headers.get(name)),
    }),
    plugins: [
      // First: nothing else (graphql-sse included) sees an unauthenticated request.
      auth.plugin,
      useValidationErrorCode(),
      ...useGraphQLLimits(),
      // Before the single-connection bounds, which must wrap the stream this one hands out.
      useSharedResults(),
      ...singleConnection,
      useExecutionCancellation(),
      useHeldCalls(),
    ],
  });
}
