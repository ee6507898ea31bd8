// The GraphQL server: Yoga over the Pothos schema at /graphql (queries, mutations, and
// subscriptions over SSE in distinct-connections mode) and, when enabled, /graphql/stream (the
// graphql-sse single-connection protocol). The HTTP layer mounts it and serves /health and /ready.
import { createYoga, useExecutionCancellation, type YogaLogger, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticate.ts';
import type { Interactions } from '../engine/types.ts';
import { createRequestAuth } from './auth.ts';
import type { GraphQLContext } from './builder.ts';
import { createMaskError, useValidationErrorCode } from './errors.ts';
import { useGraphQLLimits } from './limits.ts';
import { schema } from './schema.ts';
import { useSingleConnectionStream } from './single-connection.ts';

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
  logger: Logger;
  /**
   * Serve GraphiQL on GET /graphql with Accept: text/html (default false: Yoga's page loads
   * its scripts from a CDN, so it is blank offline and cannot sit under a strict CSP).
   */
  graphiql?: boolean;
  /**
   * Serve the graphql-sse single-connection mode at /graphql/stream (default false). The
   * library queues every event of a reserved stream in memory with no bound and keeps
   * reservations until the process ends; distinct-connections mode on /graphql does not.
   */
  singleConnectionStream?: boolean;
  /** Browser origins allowed cross-site (`['*']` for any); empty or absent: none. */
  corsOrigins?: readonly string[];
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
  const auth = createRequestAuth(authenticator);
  const singleConnection =
    opts.singleConnectionStream === true ? [useSingleConnectionStream(auth.principalOf)] : [];
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    graphiql: opts.graphiql === true ? { title: 'Interactions GraphQL' } : false,
    landingPage: false,
    // Keys travel in headers, never cookies: cross-site callers get no credentials mode.
    cors: opts.corsOrigins?.length
      ? { origin: opts.corsOrigins.includes('*') ? '*' : [...opts.corsOrigins], credentials: false }
      : false,
    healthCheckEndpoint: NO_HEALTH_CHECK,
    maxRequestBodySize: GRAPHQL_MAX_BODY_BYTES,
    logging: quietLogger(logger),
    maskedErrors: { maskError: createMaskError(logger) },
    context: ({ request }): GraphQLContext => ({
      principal: auth.principalOf(request),
      engine,
      signal: request.signal,
    }),
    plugins: [
      // First: nothing else (graphql-sse included) sees an unauthenticated request.
      auth.plugin,
      useValidationErrorCode(),
      ...useGraphQLLimits(),
      ...singleConnection,
      useExecutionCancellation(),
    ],
  });
}
