// Trace context (API.md §24): what a door reads from the caller (W3C `traceparent` and
// `tracestate`, raw and bounded), what a question keeps of its `wait_for human_decision` span so
// that any instance can end it, and how a follow-up continues that trace. Pure: the
// OpenTelemetry SDK that parses, samples and exports lives outside the domain and is loaded only
// when tracing is configured.
import { decidedByOf as decidedByOfStatus } from './decision-stats.ts';
import type { QuestionRecord } from './question.ts';

/** The caller's trace headers as received, not yet parsed (the SDK's propagator judges them). */
export interface CallerTrace {
  traceparent: string;
  tracestate: string | null;
}

/**
 * The wait span's identity, kept with the question when it is asked: the span is recorded once,
 * at resolution, by whichever instance performs the question's `trace` follow-up, with these ids
 * and the question's own times.
 */
export interface QuestionTrace {
  /** 32 lowercase hex digits: the caller's trace, or a new one. */
  traceId: string;
  /** 16 lowercase hex digits: the wait span's own id. */
  spanId: string;
  /** The caller's span (the wait span's parent); null when the caller sent no trace. */
  parentSpanId: string | null;
  /** Whether the span is recorded (the sampler's decision at ask time). */
  sampled: boolean;
  /** The W3C `tracestate` carried on (bounded); null: none. */
  traceState: string | null;
}

/** Longest `traceparent` read (version 00 is 55 characters; later versions may append fields). */
export const TRACEPARENT_MAX_CHARS = 256;
/** Longest `tracestate` kept: 32 members of the W3C limit, cut at the recommended 512 characters. */
export const TRACESTATE_MAX_CHARS = 512;

/**
 * The caller's trace headers through `get` (a header getter, any case): null when there is no
 * `traceparent`, or one longer than any valid value (the SDK parses the rest and ignores what it
 * cannot read). A `tracestate` past its bound is dropped, as W3C allows.
 */
export function callerTraceOf(get: (name: string) => string | null | undefined): CallerTrace | null {
  const traceparent = get('traceparent')?.trim();
  if (!traceparent || traceparent.length > TRACEPARENT_MAX_CHARS) return null;
  const state = get('tracestate')?.trim() ?? '';
  return { traceparent, tracestate: state === '' || state.length > TRACESTATE_MAX_CHARS ? null : state };
}

/** A Node `IncomingHttpHeaders`-like object (repeated headers as arrays): the first value counts. */
export function callerTraceOfHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): CallerTrace | null {
  return callerTraceOf((name) => {
    const v = headers[name];
    return Array.isArray(v) ? (v[0] as string | undefined) : (v as string | undefined);
  });
}

/** The `traceparent` a follow-up sends: the question's trace, its wait span as the parent. */
export function traceparentOf(t: QuestionTrace): string {
  return `00-${t.traceId}-${t.spanId}-${t.sampled ? '01' : '00'}`;
}

/** The trace headers of a follow-up about `q`; none when it was asked without tracing. */
export function traceHeadersOf(q: Pick<QuestionRecord, 'trace'>): Record<string, string> {
  const t = q.trace;
  if (!t) return {};
  return t.traceState
    ? { traceparent: traceparentOf(t), tracestate: t.traceState }
    : { traceparent: traceparentOf(t) };
}

export const DECIDED_BY_KINDS = ['person', 'policy', 'grant', 'timeout', 'cancelled'] as const;
export type DecidedByKind = (typeof DECIDED_BY_KINDS)[number];

/**
 * Who decided a resolved question, as a kind (never the identity): a rule (`policy:<id>`), a
 * grant (`policy:grant-<id>`), the deadline, a cancellation, or else a person (a key, a channel user,
 * a callback URL's holder, an MCP client's user).
 */
export function decidedByOf(q: Pick<QuestionRecord, 'status' | 'answeredBy'>): DecidedByKind {
  // One rule with the SLA view's (decision-stats.ts), so a span and the stats never disagree.
  return decidedByOfStatus(q.status, q.answeredBy) ?? 'person';
}
