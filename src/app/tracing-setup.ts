// OpenTelemetry traces (API.md §24): on only when Config.otel says so (an OTLP endpoint is set).
// The SDK is imported here, lazily, so a server without OTEL_* settings never loads it and pays
// nothing for tracing: the engine then has no TracingPort and asks, resolutions and follow-ups
// take exactly the paths they took before traces existed.
import type pino from 'pino';
import type { TracingPort } from '../engine/outbox/trace-span.ts';
import type { Config } from './config.ts';
import type { Closers } from './store-setup.ts';

export async function openTracing(
  config: Pick<Config, 'otel'>,
  logger: pino.Logger,
  closers: Closers,
): Promise<TracingPort | undefined> {
  const settings = config.otel;
  if (!settings) return undefined;
  const { createOtelTracing } = await import('../tracing/otel.ts');
  const tracing = createOtelTracing(settings, logger);
  // After the outbox worker has stopped (closers run in reverse): its last spans are exported.
  closers.push(() => tracing.close());
  logger.info(
    { endpoint: new URL(settings.tracesUrl).origin, protocol: settings.protocol, sampler: settings.sampler },
    'OpenTelemetry traces are exported over OTLP/HTTP',
  );
  return tracing;
}
