// The OpenTelemetry side of API.md §24, on the official JS SDK and OTLP/HTTP exporters. Loaded
// with a dynamic import by src/app/tracing-setup.ts only when tracing is configured, so a server
// without OTEL_* settings never loads a line of the SDK.
//
// No instrumentation is registered and no global provider or context manager is installed: the
// only span is the question's wait span, made here from what the engine hands over. Its ids are
// chosen at ask time (begin: the caller's trace continued through the W3C propagator, the
// configured sampler asked once) and kept on the question; at resolution, on whichever instance
// performs the question's `trace` item, record() makes the SDK span with those same ids (a
// pinned IdGenerator, read synchronously inside startSpan), the question's own start and end,
// and exports it. record() resolves only when the export has answered, so the outbox item is
// acknowledged after the span left, and retried if it did not.
import {
  type Context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { ExportResultCode, TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  type IdGenerator,
  ParentBasedSampler,
  RandomIdGenerator,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { CallerTrace, QuestionTrace } from '../domain/trace.ts';
import { VERSION } from '../domain/version.ts';
import type { Logger } from '../engine/logger.ts';
import { type TracingPort, WAIT_SPAN_NAME, type WaitSpan } from '../engine/outbox/trace-span.ts';
import type { OtelSettings } from './options.ts';

/** Most spans one export carries (the OTel default of OTEL_BSP_MAX_EXPORT_BATCH_SIZE). */
export const MAX_EXPORT_BATCH = 512;
export const INSTRUMENTATION_SCOPE = 'tai-interactions';

export type OtelTracing = TracingPort & { close(): Promise<void> };

/** OTEL_TRACES_SAMPLER as the SDK's samplers. */
export function samplerOf(s: Pick<OtelSettings, 'sampler' | 'samplerRatio'>): Sampler {
  switch (s.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(s.samplerRatio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(s.samplerRatio) });
  }
  return s.sampler satisfies never;
}

function exporterOf(s: OtelSettings): SpanExporter {
  const config = {
    url: s.tracesUrl,
    headers: { ...s.headers },
    timeoutMillis: s.timeoutMs,
    compression: s.compression as never,
  };
  return s.protocol === 'http/json' ? new JsonTraceExporter(config) : new ProtobufTraceExporter(config);
}

/**
 * Spans handed to export() one batch at a time: while an export is under way the next spans
 * gather, and go together when it answers (no timer: a lone span leaves at once).
 */
function createExportQueue(exporter: SpanExporter) {
  const queue: { span: ReadableSpan; done: (ok: boolean) => void }[] = [];
  let exporting: Promise<void> | null = null;
  const flush = (): void => {
    if (exporting || queue.length === 0) return;
    const batch = queue.splice(0, MAX_EXPORT_BATCH);
    exporting = new Promise<void>((resolve) => {
      exporter.export(
        batch.map((b) => b.span),
        (result) => {
          for (const b of batch) b.done(result.code === ExportResultCode.SUCCESS);
          resolve();
        },
      );
    }).then(() => {
      exporting = null;
      flush();
    });
  };
  return {
    add(span: ReadableSpan): Promise<boolean> {
      return new Promise((done) => {
        queue.push({ span, done });
        flush();
      });
    },
    async drain(): Promise<void> {
      while (exporting) await exporting;
    },
  };
}

export function createOtelTracing(settings: OtelSettings, logger: Logger): OtelTracing {
  const propagator = new W3CTraceContextPropagator();
  const random = new RandomIdGenerator();
  const sampler = samplerOf(settings);
  /** The ids record() is about to make a span with; read by startSpan, synchronously. */
  let pinned: { traceId: string; spanId: string } | null = null;
  const ids: IdGenerator = {
    generateTraceId: () => pinned?.traceId ?? random.generateTraceId(),
    generateSpanId: () => pinned?.spanId ?? random.generateSpanId(),
  };
  let ended: ReadableSpan | null = null;
  const exporter = exporterOf(settings);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      ...settings.resourceAttributes,
      'service.name': settings.serviceName,
      'service.version': VERSION,
    }),
    idGenerator: ids,
    // The sampler was asked once, at ask time: a span that reaches record() is recorded.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [
      {
        onStart() {},
        onEnd(span) {
          ended = span;
        },
        forceFlush: async () => {},
        shutdown: async () => {},
      },
    ],
  });
  const tracer = provider.getTracer(INSTRUMENTATION_SCOPE, VERSION);
  const exports = createExportQueue(exporter);
  let failuresLoggedAt = Number.NEGATIVE_INFINITY;

  return {
    begin(caller: CallerTrace | null): QuestionTrace {
      const parentContext: Context = caller
        ? propagator.extract(
            ROOT_CONTEXT,
            caller.tracestate === null ? { traceparent: caller.traceparent } : caller,
            defaultTextMapGetter,
          )
        : ROOT_CONTEXT;
      const parent = trace.getSpanContext(parentContext);
      const traceId = parent?.traceId ?? random.generateTraceId();
      const decision = sampler.shouldSample(
        parentContext,
        traceId,
        WAIT_SPAN_NAME,
        SpanKind.INTERNAL,
        {},
        [],
      );
      return {
        traceId,
        spanId: random.generateSpanId(),
        parentSpanId: parent?.spanId ?? null,
        sampled: decision.decision === SamplingDecision.RECORD_AND_SAMPLED,
        traceState: parent?.traceState?.serialize() || null,
      };
    },

    async record(w: WaitSpan): Promise<boolean> {
      const t = w.trace;
      const parent =
        t.parentSpanId === null
          ? ROOT_CONTEXT
          : trace.setSpanContext(ROOT_CONTEXT, {
              traceId: t.traceId,
              spanId: t.parentSpanId,
              traceFlags: TraceFlags.SAMPLED,
              isRemote: true,
              ...(t.traceState ? { traceState: new TraceState(t.traceState) } : {}),
            });
      pinned = { traceId: t.traceId, spanId: t.spanId };
      let span: ReturnType<typeof tracer.startSpan>;
      try {
        span = tracer.startSpan(
          WAIT_SPAN_NAME,
          { kind: SpanKind.INTERNAL, startTime: new Date(w.startTime), attributes: w.attributes },
          parent,
        );
      } finally {
        pinned = null;
      }
      for (const e of w.events) span.addEvent(e.name, e.attributes, new Date(e.at));
      ended = null;
      span.end(new Date(w.endTime));
      const readable = ended as ReadableSpan | null;
      if (readable === null) return false;
      const ok = await exports.add(readable);
      if (!ok && Date.now() - failuresLoggedAt >= 60_000) {
        failuresLoggedAt = Date.now();
        // The endpoint's origin only: its headers (and any user@ part) may hold a token.
        logger.warn(
          { endpoint: new URL(settings.tracesUrl).origin },
          'trace export failed (retried by the outbox)',
        );
      }
      return ok;
    },

    async close() {
      await exports.drain();
      await exporter.shutdown();
      await provider.shutdown();
    },
  };
}
