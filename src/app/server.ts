// The composition root: reads nothing from the environment itself (it is handed a Config),
// creates every long-lived resource, wires the layers, and closes them in reverse order.
import pino from 'pino';
import { createKeyring, mintAdminKey, type PrincipalConfig } from '../auth/api-keys.ts';
import { createAuthenticator } from '../auth/authenticate.ts';
import { cappedFetch, JSON_MAX_BYTES } from '../channels/response-body.ts';
import type { EngineSettings } from '../engine/context.ts';
import { createInteractions } from '../engine/interactions.ts';
import type { WebhookEndpoint } from '../engine/outbox/resume-webhooks.ts';
import type { Directory } from '../engine/people/directory.ts';
import { createPeople, type People } from '../engine/people/people.ts';
import { PUSH_TARGET, type Push } from '../engine/people/push.ts';
import type { ChannelPort } from '../engine/ports.ts';
import type { Interactions } from '../engine/types.ts';
import { createGraphQLServer } from '../graphql/yoga.ts';
import { createHttpApp, type HttpAppOptions } from '../http/app.ts';
import { hostCheckSummary, hostCheckWarning } from '../http/host-check.ts';
import { createOidcClient } from '../http/oidc-client.ts';
import { securityHeaders } from '../http/security-headers.ts';
import { createSessionAuth } from '../http/session-auth.ts';
import type { SessionLimits } from '../mcp/legacy-sessions.ts';
import { createMetricsListener, listenOn } from '../metrics/listener.ts';
import { createMetrics, type Metrics } from '../metrics/metrics.ts';
import { hashTaggedPrefix } from '../store/redis/key-prefix.ts';
import type { QuestionStore } from '../store/types.ts';
import { builtinVerifiers, createVerifierRegistry } from '../verifiers/registry.ts';
import { manifestChannels } from './channel-port.ts';
import type { Config, ManifestSettings } from './config.ts';
import { mcpStateKey } from './mcp-state-key.ts';
import { type OutboxSetup, startOutbox } from './outbox-setup.ts';
import { authenticatorWithGroups, directoryOf, sessionsWithGroups } from './people-setup.ts';
import { setUpPush } from './push-setup.ts';
import { openReceiptSigner } from './receipt-setup.ts';
import { type Closers, openStore } from './store-setup.ts';
import { openTracing } from './tracing-setup.ts';
import { verifierPort } from './verifier-port.ts';

export interface Server {
  engine: Interactions;
  /** Web Push (API.md §19): `push.notify(question, 'remind')` is the hook for reminders (§18). */
  push: Push;
  store: QuestionStore;
  /** The one-off admin key minted because no keys were configured (print it once). */
  mintedAdminKey: string | null;
  /** The server's counters and gauges (served at /metrics when that is on). */
  metrics: Metrics;
  /** Start listening (and the metrics listener, when INTERACTIONS_METRICS_PORT is set); resolves with the base URL. */
  listen(): Promise<string>;
  /** The metrics listener's base URL once listening; null without INTERACTIONS_METRICS_PORT. */
  metricsUrl(): string | null;
  /** Handle a request in-process (tests): Fastify's inject. */
  inject: import('fastify').FastifyInstance['inject'];
  close(): Promise<void>;
}

export { StartupError } from './startup-error.ts';

export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    // Belt and braces: credentials never reach a log line even if a header is logged.
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.key', '*.apiKey', '*.ticket'],
  };
  return destination ? pino(options, destination) : pino(options);
}

export interface ServerPlugins {
  /** The manifest read at start (main loads it); absent: every module on, no channels. */
  manifest?: ManifestSettings;
  /** A channel port instead of the manifest's channels (tests). */
  channels?: ChannelPort;
  /** Resume-webhook endpoints by name: the manifest's `webhooks`, each secret read from its `secretEnv`. */
  webhookEndpoints?: Readonly<Record<string, WebhookEndpoint>>;
  /** The outbox worker's timing (tests shorten the poll, the lease, the backoff and the webhook retry schedule). */
  outbox?: OutboxSetup['timing'];
  /** Progress heartbeat of the MCP tools while they wait (tests shorten it; default 10 s). */
  mcpProgressIntervalMs?: number;
  /** The polling interval MCP tasks suggest (tests shorten it; default 2 s). */
  mcpTaskPollIntervalMs?: number;
  /** Caps and idle time of 2025 MCP sessions (tests lower them; default SESSION_LIMITS). */
  mcpSessionLimits?: SessionLimits;
  /**
   * Serve GET /metrics on the main port (the manifest's `metrics` module; default off). With
   * INTERACTIONS_METRICS_PORT set, /metrics is served on that listener instead, either way.
   */
  metrics?: boolean;
}

/** A host as a URL writes it (an IPv6 address in brackets). */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The engine's settings, from the config read at start. */
function engineSettingsOf(config: Config): EngineSettings {
  return {
    answerTimeoutSeconds: config.answerTimeoutSeconds,
    holdSeconds: config.holdSeconds,
    retentionSeconds: config.retentionSeconds,
    maxPending: config.maxPending,
    maxPendingPerPrincipal: config.maxPendingPerPrincipal,
    maxPendingMediaBytesPerPrincipal: config.maxPendingMediaBytesPerPrincipal,
    maxPendingMediaBytes: config.maxPendingMediaBytes,
    maxOutbox: config.outboxMax,
    publicBaseUrl: config.publicBaseUrl,
    publicBaseUrlLocal: config.publicBaseUrlDefaulted,
    reaperIntervalMs: config.reaperIntervalMs,
    auditRetentionDays: config.auditRetentionDays,
  };
}

/** The channels of the manifest (or the port a test hands in); none without either. */
function channelsOf(
  config: Config,
  logger: pino.Logger,
  plugins: ServerPlugins,
  closers: Closers,
): ChannelPort | undefined {
  if (plugins.channels || !plugins.manifest) return plugins.channels;
  const made = manifestChannels(plugins.manifest, { logger, publicBaseUrl: config.publicBaseUrl });
  // Closed after the engine and the outbox worker have stopped (closers run in reverse).
  closers.push(() => made.close());
  return made.port;
}

/** The configured keys; with access control on and none configured, one minted admin key. */
function principalsOf(config: Config): {
  principals: readonly PrincipalConfig[];
  mintedAdminKey: string | null;
} {
  if (!config.accessControl || config.principals.length > 0) {
    return { principals: config.principals, mintedAdminKey: null };
  }
  const minted = mintAdminKey();
  return { principals: [minted.principal], mintedAdminKey: minted.key };
}

/**
 * People's sign-in (API.md §19): sessions are read on every door whenever access control is on
 * (a session opened before OIDC was switched off still ends on its own); the login doors only
 * when INTERACTIONS_OIDC_ISSUER is set.
 */
function signInOf(config: Config, people: People, directory: Directory): HttpAppOptions['signIn'] {
  if (!config.accessControl) return undefined;
  const publicOrigin =
    config.publicBaseUrlDefaulted || config.publicBaseUrl === null
      ? null
      : new URL(config.publicBaseUrl).origin;
  const o = config.oidc;
  return {
    client: o
      ? createOidcClient({
          issuer: o.issuer,
          clientId: o.clientId,
          clientSecret: o.clientSecret,
          // Discovery, keys and tokens are small: 64 KiB read at most.
          fetch: cappedFetch(fetch, JSON_MAX_BYTES),
        })
      : null,
    rules: { ...(o ?? { rolesClaim: 'roles', roleMap: {} }), groupsClaim: config.oidcGroupsClaim },
    people,
    sessions: sessionsWithGroups(createSessionAuth({ people, publicOrigin }), directory),
    sessionSeconds: config.sessionSeconds,
    publicOrigin,
  };
}

export async function createServer(
  config: Config,
  logger: pino.Logger = createLogger(config.logLevel),
  plugins: ServerPlugins = {},
): Promise<Server> {
  const closers: Closers = [];
  try {
    const { store, redis: redisForLimits } = await openStore(config, logger, closers);

    const manifest = plugins.manifest?.manifest;
    const directory = directoryOf(config.groups, manifest?.groups);
    const channels = channelsOf(config, logger, plugins, closers);
    const webhookEndpoints = plugins.webhookEndpoints ?? plugins.manifest?.webhookEndpoints ?? {};
    // The manifest's `verifiers` restricts which verifiers questions may bind.
    const allowedVerifiers = manifest ? new Set(manifest.verifiers) : null;
    const verifiers = builtinVerifiers().filter((v) => !allowedVerifiers || allowedVerifiers.has(v.name));

    // `iss` of every receipt: the public base URL, or this listener's own once it listens.
    let ownUrl = `http://${urlHost(config.host)}:${config.port}`;
    const receipts = await openReceiptSigner(config, logger, () => config.publicBaseUrl ?? ownUrl);

    const metrics = createMetrics();
    // Before the outbox, so that its worker (stopped first) finishes its spans before they close.
    const tracing = await openTracing(config, logger, closers);
    const { principals, mintedAdminKey } = principalsOf(config);
    let kickOutbox = (): void => {};
    // One for the process: the engine's names, the sign-in sessions and the outbox's messages.
    const people = createPeople(store.people);
    // A new question's pushes are queued by the worker that leases its `push` item: one item
    // per device, targeted at its push service.
    const push = setUpPush(config, {
      store,
      people,
      principals,
      logger,
      directory,
      kick: () => kickOutbox(),
    });
    const engine = createInteractions({
      // A new question's `push` item is due now: this instance's worker takes it at once.
      askFollowUps: async () => ((await push.anySubscribers()) ? [PUSH_TARGET] : []),
      onAsked: () => kickOutbox(),
      // The engine's one subscription wakes the worker: resolutions with follow-ups, escalation
      // steps it moved, a resync.
      wakeOutbox: () => kickOutbox(),
      people,
      store,
      logger,
      observer: metrics,
      verifiers: verifierPort(createVerifierRegistry(verifiers), config),
      ...(channels ? { channels } : {}),
      webhooks: Object.keys(webhookEndpoints),
      ...(manifest ? { escalationPolicies: manifest.escalationPolicies, policies: manifest.policies } : {}),
      settings: engineSettingsOf(config),
      receipts,
      ...(tracing ? { tracing } : {}),
      directory,
    });
    await engine.start();
    closers.push(() => engine.stop());
    const outbox = await startOutbox({
      store,
      people,
      directory,
      logger,
      channels,
      webhookEndpoints,
      metrics,
      retentionMs: config.retentionSeconds * 1000,
      publicBaseUrl: config.publicBaseUrl,
      receipts,
      push,
      ...(tracing ? { tracing } : {}),
      timing: plugins.outbox ?? {},
      closers,
    });
    kickOutbox = () => setImmediate(outbox.kick);
    metrics.observe({
      pending: () => store.countPending(),
      heldWaits: () => engine.heldCount(),
      feedSubscribers: () => engine.feedCount(),
      outbox: () => store.outbox.stats(Date.now()),
      outboxInFlight: () => outbox.inFlight(),
    });

    if (!config.accessControl) {
      logger.warn('ACCESS_CONTROL_ENABLE=false: every door is open and every caller acts as "anonymous"');
    }
    const auth = authenticatorWithGroups(
      createAuthenticator({
        accessControl: config.accessControl,
        keyring: createKeyring(principals),
        policy: config.doorPolicy,
      }),
      directory,
    );
    const signIn = signInOf(config, people, directory);
    const yoga = createGraphQLServer({
      engine,
      authenticator: auth,
      ...(signIn ? { sessions: signIn.sessions } : {}),
      logger,
      corsOrigins: config.corsOrigins,
      graphiql: config.graphiql,
      singleConnectionStream: config.graphqlStream,
      // The /graphql routes read bodies under the same cap (src/http/routes/graphql.ts).
      bodiesBoundedUpstream: true,
    });
    const app = await createHttpApp({
      engine,
      auth,
      yoga,
      logger,
      maxBodyBytes: config.callbackMaxBodyBytes,
      rateLimit: {
        perMinute: config.rateLimitPerMinute,
        redis: redisForLimits,
        // The store's own prefix (hash-tagged on a Cluster): the callback script counts the same
        // counters in its step, so they must share its slot.
        prefix: redisForLimits?.isCluster ? hashTaggedPrefix(config.keyPrefix) : config.keyPrefix,
      },
      trustProxyHops: config.trustProxyHops,
      publicBaseUrl: config.publicBaseUrl,
      ...(manifest ? { modules: manifest.modules } : {}),
      // The engine ends its held waits and live feeds first, so closing waits for no hold.
      onClosing: () => engine.stop(),
      mcp: {
        requestStateKey: mcpStateKey(config, logger),
        ...(plugins.mcpProgressIntervalMs ? { progressIntervalMs: plugins.mcpProgressIntervalMs } : {}),
        ...(plugins.mcpTaskPollIntervalMs ? { taskPollIntervalMs: plugins.mcpTaskPollIntervalMs } : {}),
        ...(plugins.mcpSessionLimits ? { sessionLimits: plugins.mcpSessionLimits } : {}),
      },
      metricsRegistry: metrics,
      // A metrics port of its own replaces /metrics on the main port.
      metrics: (plugins.metrics ?? manifest?.modules.metrics ?? false) && config.metricsPort === null,
      metricsPublic: config.doorPolicy.metrics === 'public',
      graphiql: config.graphiql,
      jwks: () => receipts.jwks(),
      groups: () => [...directory.groups.values()],
      hostCheck: { accessControl: config.accessControl, allowedHosts: config.allowedHosts },
      ...(signIn ? { signIn } : {}),
      push,
    });
    const hostCheck = {
      accessControl: config.accessControl,
      allowedHosts: config.allowedHosts,
      publicBaseUrl: config.publicBaseUrl,
    };
    logger.info(hostCheckSummary(hostCheck));
    const hostWarning = hostCheckWarning({ ...hostCheck, bindHost: config.host });
    if (hostWarning) logger.warn(hostWarning);
    closers.push(() => app.close());
    const metricsListener =
      config.metricsPort === null
        ? null
        : createMetricsListener(
            metrics,
            (err) => logger.error({ err }, 'metrics scrape failed'),
            // Plain http only: no Strict-Transport-Security (security-headers.ts).
            (await securityHeaders()).always,
          );
    let metricsUrl: string | null = null;
    if (metricsListener) {
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            metricsListener.close(() => resolve());
            metricsListener.closeAllConnections();
          }),
      );
    }

    return {
      engine,
      push,
      store,
      mintedAdminKey,
      metrics,
      inject: app.inject.bind(app),
      metricsUrl: () => metricsUrl,
      async listen() {
        if (metricsListener && config.metricsPort !== null) {
          metricsUrl = await listenOn(metricsListener, config.metricsPort, config.host);
        }
        await app.listen({ port: config.port, host: config.host });
        const address = app.server.address();
        const port = typeof address === 'object' && address ? address.port : config.port;
        ownUrl = `http://${urlHost(config.host)}:${port}`;
        return ownUrl;
      },
      async close() {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close();
    throw err;
  }
}
