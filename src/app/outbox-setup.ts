// Follow-ups of resolutions (channel message edits, resume webhooks), escalation steps and
// pushes: every instance runs a worker; leases keep two from performing the same attempt. The
// engine's one subscription to the store wakes it (EngineDeps.wakeOutbox): a resolution
// anywhere, an escalation step this instance moved, a resync; else it polls.
import type pino from 'pino';
import { createChannelFollowUp } from '../engine/deliveries/follow-up.ts';
import { createEscalationSteps, type ReminderPush } from '../engine/outbox/escalation-steps.ts';
import { TRACE_TARGET } from '../engine/outbox/follow-ups.ts';
import { createQuietDelivery } from '../engine/outbox/quiet-delivery.ts';
import { createResumeWebhooks, type WebhookEndpoint } from '../engine/outbox/resume-webhooks.ts';
import { createTraceSpans, type TracingPort } from '../engine/outbox/trace-span.ts';
import {
  createOutboxWorker,
  type FollowUpHandler,
  type OutboxWorker,
  targetParts,
} from '../engine/outbox/worker.ts';
import type { Directory } from '../engine/people/directory.ts';
import { createNameCache } from '../engine/people/names.ts';
import type { People } from '../engine/people/people.ts';
import { PUSH_PER_TARGET, PUSH_TARGET, type Push } from '../engine/people/push.ts';
import { QUIET_TARGET } from '../engine/people/quiet-channels.ts';
import { type ChannelPort, type EngineObserver, NO_CHANNELS, type ReceiptPort } from '../engine/ports.ts';
import type { QuestionStore } from '../store/types.ts';
import type { Closers } from './store-setup.ts';

export interface OutboxSetup {
  store: QuestionStore;
  /** The process's one People (the names channel messages show). */
  people: People;
  logger: pino.Logger;
  channels: ChannelPort | undefined;
  webhookEndpoints: Readonly<Record<string, WebhookEndpoint>>;
  metrics: EngineObserver;
  /** How long a dead letter is kept (the question retention). */
  retentionMs: number;
  /** Callback URLs of escalation deliveries are built on it (null: none can be handed out). */
  publicBaseUrl: string | null;
  /** Signs the receipt each resume webhook carries. */
  receipts?: ReceiptPort;
  /** Web Push: a new question's `push` item and each device's push (API.md §19). */
  push?: Push;
  /** OpenTelemetry (API.md §24): records each traced question's wait span (`trace` items). */
  tracing?: TracingPort;
  /** Groups and rotations (API.md §22): escalation steps route `oncall:` questions again. */
  directory?: Directory;
  /** The worker's timing (tests shorten the poll, the lease, the backoff and the webhook schedule). */
  timing: {
    pollMs?: number;
    leaseMs?: number;
    backoffMs?: (attempt: number) => number;
    targetBackoffMs?: (failures: number) => number;
    webhookScheduleScale?: number;
  };
  closers: Closers;
}

/** A push service origin's cap (deliveryTargetOf names it `push:<origin>`); others keep the default. */
const pushPerTarget = (target: string): number | undefined =>
  target.startsWith(`${PUSH_TARGET}:`) ? PUSH_PER_TARGET : undefined;

/** The escalation ladder's REMIND hook (API.md §18) on Web Push. */
function reminderPush(push: Push): ReminderPush {
  return {
    async remind(question) {
      await push.notify(question, 'remind');
    },
  };
}

/** Starts the worker (`kick` wakes it: the engine's subscription calls it, see server.ts). */
export async function startOutbox(o: OutboxSetup): Promise<OutboxWorker> {
  const { store, logger, channels, metrics, closers } = o;
  const { webhookScheduleScale, ...timing } = o.timing;
  const webhooks = createResumeWebhooks({
    endpoints: o.webhookEndpoints,
    logger,
    ...(o.receipts ? { receipts: o.receipts } : {}),
    ...(webhookScheduleScale ? { scheduleScale: webhookScheduleScale } : {}),
  });
  // Closed after the worker has stopped (closers run in reverse): its last deliveries finish first.
  closers.push(() => webhooks.close());
  const handlers: Record<string, FollowUpHandler> = {
    ...(channels
      ? {
          channel: createChannelFollowUp({
            store,
            channels,
            nameOf: createNameCache(o.people),
          }),
          // A channel delivery held by quiet hours or a digest, sent when the hold ends (§22).
          [QUIET_TARGET]: createQuietDelivery({
            store,
            channels,
            logger,
            observer: metrics,
            publicBaseUrl: o.publicBaseUrl,
            ...(timing.backoffMs ? { backoffMs: timing.backoffMs } : {}),
          }),
        }
      : {}),
    // A new question's `push` item queues one `push:<device>@<origin>` item per device (§19).
    ...(o.push ? { [PUSH_TARGET]: o.push.deliver } : {}),
    // Escalation steps (API.md §18). Web Push (§19) is the `push` handler above.
    escalate: createEscalationSteps({
      store,
      channels: channels ?? NO_CHANNELS,
      logger,
      observer: metrics,
      publicBaseUrl: o.publicBaseUrl,
      // A REMIND also pushes "Reminder: a question is waiting" to subscribed devices (§19).
      ...(o.push ? { push: reminderPush(o.push) } : {}),
      ...(o.directory ? { directory: o.directory } : {}),
    }),
    webhook: countedWebhooks(webhooks, metrics),
    // An approval's reported execution (API.md §23) to the same endpoint.
    executed: countedWebhooks(webhooks.executed, metrics),
    // Without tracing on this instance a `trace` item has no handler and is dropped (a dead letter).
    ...(o.tracing ? { [TRACE_TARGET]: createTraceSpans({ store, tracing: o.tracing, logger }) } : {}),
  };
  const worker = createOutboxWorker({
    store,
    logger,
    handlers,
    deadLetterRetentionMs: o.retentionMs,
    // A push service takes many pushes at once (one question to every device on it).
    ...(o.push ? { perTargetOf: pushPerTarget } : {}),
    // The kind is a label: only the handlers' names (a closed set), never a stored string.
    onDead: (item) => {
      const { kind } = targetParts(item.target);
      metrics.outboxDeadLetter(Object.hasOwn(handlers, kind) ? kind : 'other');
    },
    ...timing,
  });
  worker.start();
  closers.push(() => worker.stop());
  return worker;
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
