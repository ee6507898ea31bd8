// The wait span as data (API.md §24): attributes of each outcome and decider, events from each
// audit entry kind, nothing secret, and the `trace` follow-up's handler (done, retried, given
// up after TRACE_MAX_ATTEMPTS, dropped without a question or a trace).
import { describe, expect, it } from 'vitest';
import type { AuditEntry, AuditEntryType } from '../../src/domain/audit.ts';
import { type QuestionRecord, recordOf } from '../../src/domain/question.ts';
import {
  callerTraceOf,
  callerTraceOfHeaders,
  decidedByOf,
  type QuestionTrace,
  TRACEPARENT_MAX_CHARS,
  TRACESTATE_MAX_CHARS,
  traceHeadersOf,
} from '../../src/domain/trace.ts';
import { followUpsOf, TRACE_TARGET } from '../../src/engine/outbox/follow-ups.ts';
import {
  createTraceSpans,
  MAX_SPAN_EVENTS,
  TRACE_MAX_ATTEMPTS,
  type TracingPort,
  type WaitSpan,
  waitSpanOf,
} from '../../src/engine/outbox/trace-span.ts';
import type { OutboxItem } from '../../src/store/types.ts';
import { refundAction, specOf } from '../support/fixtures.ts';

const TRACE: QuestionTrace = {
  traceId: 'a'.repeat(32),
  spanId: 'b'.repeat(16),
  parentSpanId: 'c'.repeat(16),
  sampled: true,
  traceState: null,
};
const T0 = Date.UTC(2026, 11, 6, 12, 0, 0);

function resolved(
  over: Partial<QuestionRecord>,
  answer: unknown,
  by: string | null,
  status = 'ANSWERED',
): QuestionRecord {
  return recordOf(specOf({ createdAt: T0, trace: TRACE, ...over }), {
    status: status as 'ANSWERED',
    answer,
    answeredBy: by,
    answeredAt: status === 'ANSWERED' ? T0 + 90_500 : null,
    closedAt: status === 'ANSWERED' ? null : T0 + 90_500,
    cancelReason: null,
  });
}

let seq = 0;
function entry(
  type: AuditEntryType,
  at: number,
  detail: AuditEntry['detail'],
  via: string | null = null,
): AuditEntry {
  seq++;
  return {
    seq,
    at: new Date(at).toISOString(),
    type,
    questionId: 'q',
    actor: 'someone',
    via,
    detail,
    prev: null,
    hash: 'h',
  };
}

describe('waitSpanOf', () => {
  it('an approval: action name, outcome, decision, decided by a person, the wait in seconds', () => {
    const q = resolved(
      {
        format: 'APPROVAL',
        action: refundAction({ account: 'acct-secret', amount: 5 }),
        channel: 'ops-slack',
      },
      { decision: 'APPROVED', arguments: { account: 'acct-secret', amount: 5 } },
      'ops',
    );
    const span = waitSpanOf(q, [])!;
    expect(span).toMatchObject({ trace: TRACE, startTime: T0, endTime: T0 + 90_500 });
    expect(span.attributes).toEqual({
      'interactions.question.id': q.id,
      'interactions.question.format': 'APPROVAL',
      'interactions.question.channel': 'ops-slack',
      'interactions.action.name': q.action!.name,
      'interactions.outcome': 'ANSWERED',
      'interactions.decision': 'APPROVED',
      'interactions.decided_by': 'person',
      'interactions.wait_seconds': 90.5,
    });
    expect(JSON.stringify(span)).not.toContain('acct-secret');
    expect(JSON.stringify(span)).not.toContain(q.text);
  });

  it('a CONFIRM keeps its yes or no to itself; timeouts, cancellations, rules and grants are their own kind', () => {
    expect(waitSpanOf(resolved({}, true, 'ops'), [])!.attributes['interactions.decision']).toBeUndefined();
    const timedOut = waitSpanOf(resolved({}, null, null, 'TIMED_OUT'), [])!;
    expect(timedOut.attributes).toMatchObject({
      'interactions.outcome': 'TIMED_OUT',
      'interactions.decided_by': 'timeout',
    });
    expect(timedOut.endTime).toBe(T0 + 90_500);
    expect(decidedByOf({ status: 'CANCELLED', answeredBy: null })).toBe('cancelled');
    expect(decidedByOf({ status: 'ANSWERED', answeredBy: 'policy:auto-refunds' })).toBe('policy');
    expect(decidedByOf({ status: 'ANSWERED', answeredBy: 'policy:grant-0123abcd' })).toBe('grant');
    expect(decidedByOf({ status: 'ANSWERED', answeredBy: 'slack-ops:U123' })).toBe('person');
  });

  it('delivery, reminder, escalation and vote events from the audit log, at their own times; other entries none', () => {
    const q = resolved({ channel: 'ops-slack' }, true, 'ops');
    const span = waitSpanOf(q, [
      entry('ASKED', T0, { format: 'CONFIRM', textDigest: 'sha256:x' }),
      entry('DELIVERED', T0 + 10, { channel: 'ops-slack' }, 'channel:ops-slack'),
      entry('REMINDED', T0 + 600_000, { step: 0, action: 'REMIND', delivered: true }),
      entry('ESCALATED', T0 + 1_200_000, { step: 1, action: 'REROUTE', delivered: false, channel: 'pager' }),
      entry('DELIVERY_FAILED', T0 + 1_200_001, { channel: 'pager' }, 'channel:pager'),
      entry('VOTED', T0 + 1_300_000, { decision: 'REJECTED' }, 'channel:ops-slack'),
      entry('CALLBACK_REFUSED', T0 + 1_300_001, { channel: 'ops-slack', reason: 'team' }),
      entry('ANSWERED', T0 + 90_500, { answerDigest: 'sha256:y', decision: 'APPROVED' }, 'api'),
    ])!;
    expect(span.events).toEqual([
      {
        name: 'delivery',
        at: T0 + 10,
        attributes: { 'interactions.question.channel': 'ops-slack', 'interactions.delivered': true },
      },
      {
        name: 'reminder',
        at: T0 + 600_000,
        attributes: { 'interactions.escalation.step': 0, 'interactions.delivered': true },
      },
      {
        name: 'escalation',
        at: T0 + 1_200_000,
        attributes: {
          'interactions.question.channel': 'pager',
          'interactions.escalation.step': 1,
          'interactions.delivered': false,
        },
      },
      {
        name: 'delivery',
        at: T0 + 1_200_001,
        attributes: { 'interactions.question.channel': 'pager', 'interactions.delivered': false },
      },
      {
        name: 'vote',
        at: T0 + 1_300_000,
        attributes: { 'interactions.decision': 'REJECTED', 'interactions.via': 'channel:ops-slack' },
      },
    ]);
  });

  it(`keeps at most ${MAX_SPAN_EVENTS} events`, () => {
    const many = Array.from({ length: MAX_SPAN_EVENTS + 1 }, (_, i) =>
      entry('VOTED', T0 + i, { decision: 'APPROVED' }, 'api'),
    );
    expect(waitSpanOf(resolved({}, true, 'ops'), many)!.events).toHaveLength(MAX_SPAN_EVENTS);
    expect(waitSpanOf(resolved({}, true, 'ops'), many.slice(1))!.events).toHaveLength(MAX_SPAN_EVENTS);
  });

  it('none for a pending or untraced question', () => {
    expect(waitSpanOf(recordOf(specOf({ trace: TRACE }), null), [])).toBeNull();
    expect(waitSpanOf(resolved({ trace: null }, true, 'ops'), [])).toBeNull();
  });
});

describe('trace context', () => {
  it('reads traceparent and tracestate, ignoring one past its bound', () => {
    const tp = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    expect(callerTraceOfHeaders({ traceparent: tp, tracestate: 'k=v' })).toEqual({
      traceparent: tp,
      tracestate: 'k=v',
    });
    expect(callerTraceOfHeaders({ traceparent: [tp, 'x'] })).toEqual({ traceparent: tp, tracestate: null });
    expect(callerTraceOfHeaders({})).toBeNull();
    expect(callerTraceOf(() => 'x'.repeat(TRACEPARENT_MAX_CHARS))).not.toBeNull();
    expect(callerTraceOf(() => 'x'.repeat(TRACEPARENT_MAX_CHARS + 1))).toBeNull();
    const state = (n: number) => callerTraceOf((h) => (h === 'traceparent' ? tp : 's'.repeat(n)))?.tracestate;
    expect(state(TRACESTATE_MAX_CHARS)).toHaveLength(TRACESTATE_MAX_CHARS);
    expect(state(TRACESTATE_MAX_CHARS + 1)).toBeNull();
  });

  it('a follow-up continues the question trace under its wait span; untraced, nothing', () => {
    expect(traceHeadersOf({ trace: { ...TRACE, traceState: 'k=v' } })).toEqual({
      traceparent: `00-${TRACE.traceId}-${TRACE.spanId}-01`,
      tracestate: 'k=v',
    });
    expect(traceHeadersOf({ trace: { ...TRACE, sampled: false } })).toEqual({
      traceparent: `00-${TRACE.traceId}-${TRACE.spanId}-00`,
    });
    expect(traceHeadersOf({})).toEqual({});
  });

  it('only a sampled trace adds the trace follow-up', () => {
    const base = { channel: null, escalation: null, notify: 'runs' };
    expect(followUpsOf({ ...base, trace: TRACE })).toEqual(['webhook:runs', TRACE_TARGET]);
    expect(followUpsOf({ ...base, trace: { ...TRACE, sampled: false } })).toEqual(['webhook:runs']);
    expect(followUpsOf({ ...base })).toEqual(['webhook:runs']);
  });
});

describe('the trace follow-up handler', () => {
  const recorded: WaitSpan[] = [];
  let exportOk = true;
  const tracing: TracingPort = {
    begin: () => TRACE,
    record: async (span) => {
      recorded.push(span);
      return exportOk;
    },
  };
  const store = { audit: { page: async () => ({ entries: [], lastSeq: 0, hasMore: false }) } } as never;
  const warned: unknown[] = [];
  const handle = createTraceSpans({
    store,
    tracing,
    logger: { warn: (o: unknown) => warned.push(o), info() {}, error() {} } as never,
    clock: () => 1000,
  });
  const item = (attempt: number): OutboxItem => ({
    id: `q:${TRACE_TARGET}`,
    questionId: 'q',
    target: TRACE_TARGET,
    attempt,
    dueAt: 0,
    enqueuedAt: 0,
    leaseToken: 't',
  });
  const q = resolved({}, true, 'ops');

  it('is done once the export succeeded', async () => {
    exportOk = true;
    expect(await handle(item(0), q, '')).toEqual({ kind: 'done' });
    expect(recorded.at(-1)?.attributes['interactions.question.id']).toBe(q.id);
  });

  it(`retries a failed export, and gives it up on attempt ${TRACE_MAX_ATTEMPTS}, as done`, async () => {
    exportOk = false;
    expect(await handle(item(0), q, '')).toMatchObject({ kind: 'retry', at: 2000 });
    expect(await handle(item(TRACE_MAX_ATTEMPTS - 2), q, '')).toMatchObject({ kind: 'retry' });
    // Given up as done (said in the log), never a dead letter that would push out a webhook's.
    expect(await handle(item(TRACE_MAX_ATTEMPTS - 1), q, '')).toEqual({ kind: 'done' });
    expect(warned).toEqual([{ spans: 1 }]);
  });

  it('drops the item of a question that is gone or has no trace', async () => {
    expect(await handle(item(0), null, '')).toMatchObject({ kind: 'drop' });
    expect(await handle(item(0), resolved({ trace: null }, true, 'ops'), '')).toMatchObject({ kind: 'drop' });
  });
});
