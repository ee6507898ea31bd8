// The Prometheus metrics of one server (API.md §14), on a registry of its own so two servers
// in one process never share counters. Label values come only from closed sets (formats,
// outcomes, results, door names) or from names an operator configured (channels, webhook
// endpoints): never an id, a key or free text.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineObserver } from '../engine/ports.ts';

const PREFIX = 'tai_interactions_';

/** The label of a question asked without a channel. */
export const NO_CHANNEL = 'none';

/** What a callback or channel inbound request came to, by its response status. */
export type CallbackResult =
  | 'ok'
  | 'invalid'
  | 'unauthenticated'
  | 'not_found'
  | 'closed'
  | 'too_large'
  | 'rate_limited'
  | 'error';

/** Live values read at scrape time (the engine is created after the metrics it reports to). */
export interface MetricsSources {
  /** Questions pending in the whole deployment. */
  pending(): Promise<number>;
  /** Asker calls held open by this process. */
  heldWaits(): number;
  /** Live feeds (inbox, stream, subscriptions) served by this process. */
  feedSubscribers(): number;
}

/** The engine reports to it (announcements count asks and resolutions, deployment-wide). */
export interface Metrics extends EngineObserver {
  readonly registry: Registry;
  callbackRequest(door: string, result: CallbackResult): void;
  /** Where the gauges read from; until then they read 0. */
  observe(sources: MetricsSources): void;
  /** The text exposition and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Answer latencies span seconds (a person at the inbox) to a day (a slow approver). */
const LATENCY_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600];

export function createMetrics(): Metrics {
  const registry = new Registry();
  let sources: MetricsSources | null = null;
  collectDefaultMetrics({ register: registry });

  const created = new Counter({
    name: `${PREFIX}questions_created_total`,
    help: 'Questions asked, by answer format and channel ("none" without one).',
    labelNames: ['format', 'channel'] as const,
    registers: [registry],
  });
  const resolved = new Counter({
    name: `${PREFIX}questions_resolved_total`,
    help: 'Questions that left PENDING, by format and outcome (answered, timed_out, cancelled).',
    labelNames: ['format', 'outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: `${PREFIX}answer_latency_seconds`,
    help: 'Seconds from ask to resolution.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: `${PREFIX}questions_pending`,
    help: 'Questions pending now, in the whole deployment.',
    registers: [registry],
    async collect() {
      this.set(sources ? await sources.pending() : 0);
    },
  });
  new Gauge({
    name: `${PREFIX}held_waits`,
    help: 'Asker calls (askUser, awaitAnswer) this instance holds open.',
    registers: [registry],
    collect() {
      this.set(sources ? sources.heldWaits() : 0);
    },
  });
  new Gauge({
    name: `${PREFIX}feed_subscribers`,
    help: 'Live feeds (inbox, REST stream, GraphQL subscriptions) this instance serves.',
    registers: [registry],
    collect() {
      this.set(sources ? sources.feedSubscribers() : 0);
    },
  });
  const deliveries = new Counter({
    name: `${PREFIX}channel_deliveries_total`,
    help: 'Questions handed to a channel, by channel and result (delivered, failed).',
    labelNames: ['channel', 'result'] as const,
    registers: [registry],
  });
  const callbacks = new Counter({
    name: `${PREFIX}callback_requests_total`,
    help: 'POSTs to the callback and channel inbound doors, by door and result.',
    labelNames: ['door', 'result'] as const,
    registers: [registry],
  });
  const webhooks = new Counter({
    name: `${PREFIX}webhook_deliveries_total`,
    help: 'Resume webhook attempts, by endpoint and result.',
    labelNames: ['endpoint', 'result'] as const,
    registers: [registry],
  });

  return {
    registry,
    announced(e) {
      if (e.type === 'ASKED') {
        const q = e.question;
        created.inc({ format: q.format, channel: q.channel ?? NO_CHANNEL });
        return;
      }
      // The head, not the question: a resolution's question is decoded only on demand.
      const q = e.head;
      resolved.inc({ format: q.format, outcome: e.type.toLowerCase() });
      const at = q.answeredAt ?? q.closedAt;
      if (at !== null) latency.observe(Math.max(0, (at - q.createdAt) / 1000));
    },
    channelDelivery: (channel, result) => deliveries.inc({ channel, result }),
    callbackRequest: (door, result) => callbacks.inc({ door, result }),
    webhookDelivery: (endpoint, result) => webhooks.inc({ endpoint, result }),
    observe(s) {
      sources = s;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
