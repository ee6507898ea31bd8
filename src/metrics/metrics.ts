// The Prometheus metrics of one server (API.md §14), on a registry of its own so two servers
// in one process never share counters. Label values come only from closed sets (formats,
// outcomes, results, door names) or from names an operator configured (channels, webhook
// endpoints): never an id, a key or free text.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { decidedByOf } from '../domain/decision-stats.ts';
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
  /** Items in the whole deployment's outbox, and its dead letters. */
  outbox(): Promise<{ items: number; deadLetters: number }>;
  /** Follow-ups this process is performing now. */
  outboxInFlight(): number;
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
  const timeToDecision = new Histogram({
    name: `${PREFIX}time_to_decision_seconds`,
    help: 'Seconds from ask to the end of the wait, by format and what ended it (person, policy, grant, timeout, cancelled).',
    labelNames: ['format', 'decided_by'] as const,
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

  const deadLetters = new Counter({
    name: `${PREFIX}outbox_dead_letters_total`,
    help: 'Follow-ups this instance gave up (kept as dead letters), by kind (webhook, channel).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const escalations = new Counter({
    name: `${PREFIX}escalation_steps_total`,
    help: 'Escalation steps this instance fired (API.md §18), by action (remind, reroute) and outcome (delivered, failed).',
    labelNames: ['action', 'outcome'] as const,
    registers: [registry],
  });
  const policyDecisions = new Counter({
    name: `${PREFIX}policy_decisions_total`,
    help: 'Asks a policy rule applied to (API.md §20), by effect (allow, deny, ask) and mode (enforce, shadow).',
    labelNames: ['effect', 'mode'] as const,
    registers: [registry],
  });
  const outboxFull = new Counter({
    name: `${PREFIX}outbox_full_total`,
    help: 'Asks refused because the outbox was at INTERACTIONS_OUTBOX_MAX.',
    registers: [registry],
  });
  // The two deployment-wide outbox gauges share one store read per scrape.
  let outboxRead: Promise<{ items: number; deadLetters: number }> | null = null;
  const outboxNow = (): Promise<{ items: number; deadLetters: number }> => {
    if (!sources) return Promise.resolve({ items: 0, deadLetters: 0 });
    outboxRead ??= sources.outbox().finally(() => {
      outboxRead = null;
    });
    return outboxRead;
  };
  new Gauge({
    name: `${PREFIX}outbox_items`,
    help: 'Follow-ups waiting in the outbox (due, in flight or scheduled), in the whole deployment.',
    registers: [registry],
    async collect() {
      this.set((await outboxNow()).items);
    },
  });
  new Gauge({
    name: `${PREFIX}outbox_dead_letters`,
    help: 'Dead letters kept now (follow-ups given up), in the whole deployment.',
    registers: [registry],
    async collect() {
      this.set((await outboxNow()).deadLetters);
    },
  });
  new Gauge({
    name: `${PREFIX}outbox_in_flight`,
    help: 'Follow-ups this instance is performing now.',
    registers: [registry],
    collect() {
      this.set(sources ? sources.outboxInFlight() : 0);
    },
  });

  return {
    registry,
    announced(e) {
      if (e.type === 'ASKED') {
        const q = e.question;
        created.inc({ format: q.format, channel: q.channel ?? NO_CHANNEL });
        return;
      }
      // A pending question that changed is not a resolution.
      if (e.type === 'UPDATED') return;
      // The head, not the question: a resolution's question is decoded only on demand.
      const q = e.head;
      resolved.inc({ format: q.format, outcome: e.type.toLowerCase() });
      const at = q.answeredAt ?? q.closedAt;
      if (at === null) return;
      const seconds = Math.max(0, (at - q.createdAt) / 1000);
      latency.observe(seconds);
      const status = e.type === 'ANSWERED' ? 'ANSWERED' : e.type === 'TIMED_OUT' ? 'TIMED_OUT' : 'CANCELLED';
      const decidedBy = decidedByOf(status, q.answeredBy ?? null);
      if (decidedBy !== null) timeToDecision.observe({ format: q.format, decided_by: decidedBy }, seconds);
    },
    channelDelivery: (channel, result) => deliveries.inc({ channel, result }),
    callbackRequest: (door, result) => callbacks.inc({ door, result }),
    webhookDelivery: (endpoint, result) => webhooks.inc({ endpoint, result }),
    outboxDeadLetter: (kind) => deadLetters.inc({ kind }),
    outboxFull: () => outboxFull.inc(),
    policyDecision: (effect, mode) =>
      policyDecisions.inc({ effect: effect.toLowerCase(), mode: mode.toLowerCase() }),
    escalationStep: (action, outcome) => escalations.inc({ action, outcome }),
    observe(s) {
      sources = s;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
