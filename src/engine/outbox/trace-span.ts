// The `wait_for human_decision` span (API.md §24): one per traced question, from ask to
// resolution. It is not held open in memory (the instance that asked may be gone when the
// question resolves): the ask keeps the span's ids on the question, the resolution enqueues the
// question's `trace` item in the same atomic step, and whichever instance performs that item
// records the span here, with the question's own times, its attributes and, as events, what the
// audit log holds of its deliveries, reminders, escalations and votes. Nothing the span carries
// is a question's text, an argument, an answer, a ticket or a key: ids, kinds, counts, names of
// configured channels, times.
import { decisionOf } from '../../domain/approval.ts';
import type { AuditEntry, AuditEntryType } from '../../domain/audit.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { type CallerTrace, decidedByOf, type QuestionTrace } from '../../domain/trace.ts';
import type { QuestionStore } from '../../store/types.ts';
import type { Logger } from '../logger.ts';
import type { FollowUpHandler } from './worker-options.ts';

export const WAIT_SPAN_NAME = 'wait_for human_decision';

export type SpanAttributes = Record<string, string | number | boolean>;

/** A recorded span as plain data: the tracing port turns it into an SDK span and exports it. */
export interface WaitSpan {
  trace: QuestionTrace;
  /** Epoch ms. */
  startTime: number;
  endTime: number;
  attributes: SpanAttributes;
  events: { name: string; at: number; attributes: SpanAttributes }[];
}

/** What the engine needs of OpenTelemetry; implemented by src/tracing (loaded only when configured). */
export interface TracingPort {
  /** The wait span of a question asked now, continuing the caller's trace when it sent one. */
  begin(caller: CallerTrace | null): QuestionTrace;
  /** Records and exports an ended span; resolves false when the export failed. */
  record(span: WaitSpan): Promise<boolean>;
}

/** The audit entries that become the span's events, and each event's name. */
const EVENT_NAMES: Partial<Record<AuditEntryType, string>> = {
  DELIVERED: 'delivery',
  DELIVERY_FAILED: 'delivery',
  REMINDED: 'reminder',
  ESCALATED: 'escalation',
  VOTED: 'vote',
};
const EVENT_TYPES = Object.keys(EVENT_NAMES) as AuditEntryType[];
/** Most events one span carries (a ladder has at most 10 steps; quorums are small). */
export const MAX_SPAN_EVENTS = 128;
/** Attempts at exporting one span before it is given up (a collector down for minutes). */
export const TRACE_MAX_ATTEMPTS = 5;

/** The attribute names, in one place (docs/observability.md explains each). */
export const ATTR = {
  questionId: 'interactions.question.id',
  format: 'interactions.question.format',
  channel: 'interactions.question.channel',
  actionName: 'interactions.action.name',
  outcome: 'interactions.outcome',
  decision: 'interactions.decision',
  decidedBy: 'interactions.decided_by',
  waitSeconds: 'interactions.wait_seconds',
  delivered: 'interactions.delivered',
  step: 'interactions.escalation.step',
  via: 'interactions.via',
} as const;

function eventOf(e: AuditEntry): WaitSpan['events'][number] | null {
  const name = EVENT_NAMES[e.type];
  if (!name) return null;
  const d = e.detail ?? {};
  const attributes: SpanAttributes = {};
  if (typeof d.channel === 'string') attributes[ATTR.channel] = d.channel;
  if (e.type === 'DELIVERED' || e.type === 'DELIVERY_FAILED')
    attributes[ATTR.delivered] = e.type === 'DELIVERED';
  if (e.type === 'REMINDED' || e.type === 'ESCALATED') {
    if (typeof d.step === 'number') attributes[ATTR.step] = d.step;
    if (typeof d.delivered === 'boolean') attributes[ATTR.delivered] = d.delivered;
  }
  if (e.type === 'VOTED') {
    if (d.decision === 'APPROVED' || d.decision === 'REJECTED') attributes[ATTR.decision] = d.decision;
    // The door (`api`, `callback`, `channel:<name>`…), never who voted.
    if (e.via) attributes[ATTR.via] = e.via;
  }
  return { name, at: Date.parse(e.at), attributes };
}

/** The span of a resolved, traced question, its events from `entries` (the question's audit). */
export function waitSpanOf(q: QuestionRecord, entries: readonly AuditEntry[]): WaitSpan | null {
  if (!q.trace || q.status === 'PENDING') return null;
  const endTime = q.closedAt ?? q.answeredAt ?? q.createdAt;
  const attributes: SpanAttributes = {
    [ATTR.questionId]: q.id,
    [ATTR.format]: q.format,
    [ATTR.outcome]: q.status,
    [ATTR.decidedBy]: decidedByOf(q),
    [ATTR.waitSeconds]: Math.max(0, endTime - q.createdAt) / 1000,
  };
  if (q.channel) attributes[ATTR.channel] = q.channel;
  if (q.action) attributes[ATTR.actionName] = q.action.name;
  // Approvals only: a CONFIRM's yes or no is its answer.
  const decision = q.format === 'APPROVAL' ? decisionOf(q) : null;
  if (decision) attributes[ATTR.decision] = decision;
  const events = entries.flatMap((e) => eventOf(e) ?? []).slice(0, MAX_SPAN_EVENTS);
  return { trace: q.trace, startTime: q.createdAt, endTime, attributes, events };
}

export interface TraceSpanOptions {
  store: Pick<QuestionStore, 'audit'>;
  tracing: TracingPort;
  logger: Logger;
  clock?: () => number;
}

/**
 * The outbox handler of `trace` items. A span whose export keeps failing is given up after
 * TRACE_MAX_ATTEMPTS as done, not dropped: dead letters are where operators find the webhooks
 * and channel edits that failed (kept up to MAX_DEAD_LETTERS, oldest first out), and a collector
 * down for an hour must not push those out with spans. It is said in the log, once a minute with
 * a count.
 */
export function createTraceSpans(o: TraceSpanOptions): FollowUpHandler {
  const clock = o.clock ?? Date.now;
  let givenUp = 0;
  let saidAt = Number.NEGATIVE_INFINITY;
  const giveUp = (): void => {
    givenUp++;
    const now = clock();
    if (now - saidAt < 60_000) return;
    saidAt = now;
    o.logger.warn({ spans: givenUp }, `trace spans given up after ${TRACE_MAX_ATTEMPTS} failed exports`);
    givenUp = 0;
  };
  return async (item, question) => {
    if (!question) return { kind: 'drop', reason: 'the question is gone' };
    const page = await o.store.audit.page({
      questionId: question.id,
      first: MAX_SPAN_EVENTS,
      types: EVENT_TYPES,
    });
    const span = waitSpanOf(question, page.entries);
    if (!span) return { kind: 'drop', reason: 'the question has no trace to record' };
    if (await o.tracing.record(span)) return { kind: 'done' };
    // Telemetry never holds up the work: a few tries, then the span is given up.
    if (item.attempt + 1 >= TRACE_MAX_ATTEMPTS) {
      giveUp();
      return { kind: 'done' };
    }
    return {
      kind: 'retry',
      at: clock() + Math.min(1000 * 2 ** item.attempt, 60_000),
      reason: 'trace export failed',
    };
  };
}
