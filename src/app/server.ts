// The composition root: reads nothing from the environment itself (it is handed a Config),
// creates every long-lived resource, wires the layers, and closes them in reverse order.
import pino from 'pino';
import { createKeyring, mintAdminKey, type PrincipalConfig } from '../auth/api-keys.ts';
import { createAuthenticator } from '../auth/authenticate.ts';
import { createChannelFollowUp } from '../engine/channel-follow-up.ts';
import { hasFollowUps } from '../engine/follow-ups.ts';
import { createInteractions } from '../engine/interactions.ts';
import { createOutboxWorker, type FollowUpHandler } from '../engine/outbox-worker.ts';
import type { ChannelPort, EngineObserver } from '../engine/ports.ts';
import { createResumeWebhooks, type WebhookEndpoint } from '../engine/resume-webhooks.ts';
import type { Interactions } from '../engine/types.ts';
import { createGraphQLServer } from '../graphql/yoga.ts';
import { createHttpApp } from '../http/app.ts';
import { createMetricsListener, listenOn } from '../metrics/listener.ts';
import { createMetrics, type Metrics } from '../metrics/metrics.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import type { RedisClient } from '../store/redis/client.ts';
import { connectAll, createRedisConnections, type RedisTarget } from '../store/redis/connection.ts';
import { hashTaggedPrefix } from '../store/redis/key-prefix.ts';
import { createRedisStore } from '../store/redis/redis-store.ts';
import type { QuestionStore } from '../store/types.ts';
import { builtinVerifiers, createVerifierRegistry } from '../verifiers/registry.ts';
import { manifestChannels } from './channel-port.ts';
import type { Config, ManifestSettings } from './config.ts';
import { verifierPort } from './verifier-port.ts';

export interface Server {
  engine: Interactions;
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

export class StartupError extends Error {}

const MIN_REDIS = [7, 0];

function redisTarget(config: Config, url: string): RedisTarget {
  if (config.redisMode !== 'sentinel') return { mode: config.redisMode, url };
  return { mode: 'sentinel', url, sentinels: config.redisSentinels, name: config.redisSentinelName ?? '' };
}

async function checkRedisVersion(redis: RedisClient): Promise<void> {
  const info = await redis.info('server');
  const version = /redis_version:(\d+)\.(\d+)/.exec(info);
  const [major, minor] = version ? [Number(version[1]), Number(version[2])] : [0, 0];
  if (major < MIN_REDIS[0]! || (major === MIN_REDIS[0] && minor < MIN_REDIS[1]!)) {
    throw new StartupError(
      `INTERACTIONS_REDIS_URL: Redis ${MIN_REDIS.join('.')} or newer is required (found ${major}.${minor})`,
    );
  }
}

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
  outbox?: {
    pollMs?: number;
    leaseMs?: number;
    backoffMs?: (attempt: number) => number;
    webhookScheduleScale?: number;
  };
  /** Progress heartbeat of the MCP tools while they wait (tests shorten it; default 10 s). */
  mcpProgressIntervalMs?: number;
  /**
   * Serve GET /metrics on the main port (the manifest's `metrics` module; default off). With
   * INTERACTIONS_METRICS_PORT set, /metrics is served on that listener instead, either way.
   */
  metrics?: boolean;
}

export async function createServer(
  config: Config,
  logger: pino.Logger = createLogger(config.logLevel),
  plugins: ServerPlugins = {},
): Promise<Server> {
  const closers: (() => Promise<void> | void)[] = [];
  try {
    let store: QuestionStore;
    let redisForLimits: RedisClient | null = null;
    if (config.redisUrl) {
      const { redis, subscriber } = createRedisConnections(redisTarget(config, config.redisUrl));
      for (const c of [redis, subscriber])
        c.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
      closers.push(() => {
        redis.disconnect();
        subscriber.disconnect();
      });
      try {
        await connectAll([redis, subscriber]);
      } catch {
        throw new StartupError(
          config.redisMode === 'sentinel'
            ? 'INTERACTIONS_REDIS_SENTINELS: cannot connect to Redis through the sentinels'
            : 'INTERACTIONS_REDIS_URL: cannot connect to Redis',
        );
      }
      await checkRedisVersion(redis);
      const redisStore = createRedisStore({
        redis,
        subscriber,
        prefix: config.keyPrefix,
        waitReplicas: config.redisWaitReplicas,
      });
      // Questions stored by an earlier version get their listing indexes (once, in batches).
      await redisStore.ensureIndexes();
      store = redisStore;
      redisForLimits = redis;
    } else {
      store = createMemoryStore();
      logger.warn(
        'INTERACTIONS_REDIS_URL is not set: using the in-memory store (one process; lost on restart)',
      );
    }
    closers.push(() => store.close());

    const manifest = plugins.manifest?.manifest;
    let channels = plugins.channels;
    if (!channels && plugins.manifest) {
      const made = manifestChannels(plugins.manifest, { logger, publicBaseUrl: config.publicBaseUrl });
      channels = made.port;
      // Closed after the engine and the outbox worker have stopped (closers run in reverse).
      closers.push(() => made.close());
    }
    const webhookEndpoints = plugins.webhookEndpoints ?? plugins.manifest?.webhookEndpoints ?? {};
    // The manifest's `verifiers` restricts which verifiers questions may bind.
    const allowedVerifiers = manifest ? new Set(manifest.verifiers) : null;
    const verifiers = builtinVerifiers().filter((v) => !allowedVerifiers || allowedVerifiers.has(v.name));

    const metrics = createMetrics();
    const engine = createInteractions({
      store,
      logger,
      observer: metrics,
      verifiers: verifierPort(createVerifierRegistry(verifiers), config),
      ...(channels ? { channels } : {}),
      webhooks: Object.keys(webhookEndpoints),
      settings: {
        answerTimeoutSeconds: config.answerTimeoutSeconds,
        holdSeconds: config.holdSeconds,
        retentionSeconds: config.retentionSeconds,
        maxPending: config.maxPending,
        maxPendingPerPrincipal: config.maxPendingPerPrincipal,
        maxPendingMediaBytesPerPrincipal: config.maxPendingMediaBytesPerPrincipal,
        maxPendingMediaBytes: config.maxPendingMediaBytes,
        publicBaseUrl: config.publicBaseUrl,
        reaperIntervalMs: config.reaperIntervalMs,
      },
    });
    await engine.start();
    closers.push(() => engine.stop());
    metrics.observe({
      pending: () => store.countPending(),
      heldWaits: () => engine.heldCount(),
      feedSubscribers: () => engine.feedCount(),
    });

    // Follow-ups of resolutions (channel message edits, resume webhooks): every instance runs a
    // worker; leases keep two from performing the same attempt. A resolution anywhere wakes it.
    const { webhookScheduleScale, ...timing } = plugins.outbox ?? {};
    const worker = createOutboxWorker({
      store,
      logger,
      handlers: {
        ...(channels ? { channel: createChannelFollowUp({ store, channels }) } : {}),
        webhook: countedWebhooks(
          createResumeWebhooks({
            endpoints: webhookEndpoints,
            logger,
            ...(webhookScheduleScale ? { scheduleScale: webhookScheduleScale } : {}),
          }),
          metrics,
        ),
      },
      ...timing,
    });
    worker.start();
    closers.push(() => worker.stop());
    const unlisten = await store.listen({
      event: (e) => {
        // Only a resolution of a question with follow-ups enqueued anything (most have none:
        // a lease round trip per resolution on every instance would be waste). Kicked after
        // this announcement's waiters and feeds have had their turn, not in front of them.
        if (e.type !== 'ASKED' && hasFollowUps(e.question)) setImmediate(worker.kick);
      },
      resync: () => worker.kick(),
    });
    closers.push(unlisten);

    let principals: readonly PrincipalConfig[] = config.principals;
    let mintedAdminKey: string | null = null;
    if (config.accessControl && principals.length === 0) {
      const minted = mintAdminKey();
      principals = [minted.principal];
      mintedAdminKey = minted.key;
    }
    if (!config.accessControl) {
      logger.warn('ACCESS_CONTROL_ENABLE=false: every door is open and every caller acts as "anonymous"');
    }
    const auth = createAuthenticator({
      accessControl: config.accessControl,
      keyring: createKeyring(principals),
      policy: config.doorPolicy,
    });
    const yoga = createGraphQLServer({
      engine,
      authenticator: auth,
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
      ...(plugins.mcpProgressIntervalMs
        ? { mcp: { progressIntervalMs: plugins.mcpProgressIntervalMs } }
        : {}),
      metricsRegistry: metrics,
      // A metrics port of its own replaces /metrics on the main port.
      metrics: (plugins.metrics ?? manifest?.modules.metrics ?? false) && config.metricsPort === null,
      metricsPublic: config.doorPolicy.metrics === 'public',
    });
    closers.push(() => app.close());
    const metricsListener =
      config.metricsPort === null
        ? null
        : createMetricsListener(metrics, (err) => logger.error({ err }, 'metrics scrape failed'));
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
        const host = config.host.includes(':') ? `[${config.host}]` : config.host;
        const address = app.server.address();
        const port = typeof address === 'object' && address ? address.port : config.port;
        return `http://${host}:${port}`;
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

/** Counts each resume-webhook attempt by what became of it (webhook_deliveries_total). */
function countedWebhooks(handler: FollowUpHandler, observer: EngineObserver): FollowUpHandler {
  return async (item, question, name) => {
    const result = await handler(item, question, name);
    if (result.kind === 'done') observer.webhookDelivery(name, 'delivered');
    else if (result.kind === 'retry') observer.webhookDelivery(name, 'failed');
    else observer.webhookDelivery(name, result.gone ? 'gone' : 'gave_up');
    return result;
  };
}
