// OpenTelemetry traces (API.md §24), configured by the standard OTel variables and read here once,
// like every other setting: the exporter is handed what is parsed here, so nothing else reads
// them. Tracing is on when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none;
// off, the SDK is never even loaded. Headers may carry a collector's token: they are judged
// without quoting them.
import { z } from 'zod';
import { OTEL_SAMPLERS, OTLP_PROTOCOLS, type OtelSettings } from '../../tracing/options.ts';
import { ConfigError, flag, quoting, settingsArea, urlSetting, wholeNumber } from './fields.ts';

export { OTEL_SAMPLERS, OTLP_PROTOCOLS, type OtelSettings } from '../../tracing/options.ts';

export interface OtelSettingsGroup {
  /** null: tracing is off (no endpoint, disabled, or the exporter is `none`). */
  readonly otel: OtelSettings | null;
}

const endpoint = urlSetting('an http:// or https:// URL', (url) =>
  url.protocol === 'http:' || url.protocol === 'https:'
    ? { keep: url.href }
    : 'the scheme must be http or https',
);

const protocol = z
  .enum(OTLP_PROTOCOLS, {
    error: (i) =>
      `expected one of ${OTLP_PROTOCOLS.join(', ')} (grpc is not offered), got ${JSON.stringify(String(i.input).slice(0, 40))}`,
  })
  .optional();

const compression = z.enum(['gzip', 'none'], { error: quoting('gzip or none') }).optional();

/** `key=value,key2=value2`, each part percent-decoded (the W3C Baggage form the OTel spec names). */
function keyValueList(raw: string | undefined, variable: string, secret: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined || raw.trim() === '') return out;
  for (const part of raw.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const fail = (why: string) =>
      new ConfigError(
        variable,
        secret ? `${why} (a list of key=value pairs)` : `${why} in ${JSON.stringify(part.slice(0, 40))}`,
      );
    if (eq <= 0) throw fail('a pair without key=value');
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(part.slice(0, eq).trim());
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw fail('a pair that is not percent-encoded correctly');
    }
    if (key === '') throw fail('an empty key');
    out[key] = value;
  }
  return out;
}

const exporterNames = z
  .string()
  .optional()
  .transform((raw, ctx): 'otlp' | 'none' => {
    const names = (raw ?? 'otlp')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (names.length === 0 || names.every((n) => n === 'none')) return names.length === 0 ? 'otlp' : 'none';
    if (names.every((n) => n === 'otlp' || n === 'none')) return 'otlp';
    ctx.addIssue({ code: 'custom', message: quoting('otlp or none')({ input: raw }) });
    return z.NEVER;
  });

const ratio = z
  .string()
  .optional()
  .transform((raw, ctx): number | null => {
    if (raw === undefined || raw === '') return null;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
      ctx.addIssue({ code: 'custom', message: quoting('a number from 0 to 1')({ input: raw }) });
      return z.NEVER;
    }
    return n;
  });

const timeout = wholeNumber(10_000, 1, 600_000);

/** The per-signal timeout: unset falls back to OTEL_EXPORTER_OTLP_TIMEOUT (a default would hide it). */
const optionalTimeout = z
  .string()
  .optional()
  .transform((raw, ctx): number | null => {
    if (raw === undefined) return null;
    const r = timeout.safeParse(raw);
    if (r.success) return r.data;
    ctx.addIssue({ code: 'custom', message: r.error.issues[0]?.message ?? 'invalid' });
    return z.NEVER;
  });

/** The base endpoint with the signal's path appended, as the OTel specification says. */
function tracesUrlOf(base: string): string {
  return `${base.endsWith('/') ? base : `${base}/`}v1/traces`;
}

export const otelSettings = settingsArea({
  env: {
    OTEL_SDK_DISABLED: flag(false),
    OTEL_TRACES_EXPORTER: exporterNames,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
    OTEL_EXPORTER_OTLP_TIMEOUT: timeout,
    OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: optionalTimeout,
    OTEL_EXPORTER_OTLP_COMPRESSION: compression,
    OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: compression,
    OTEL_SERVICE_NAME: z.string().trim().min(1, { error: 'expected a name' }).max(200).optional(),
    OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
    OTEL_TRACES_SAMPLER: z
      .enum(OTEL_SAMPLERS, { error: quoting(`one of ${OTEL_SAMPLERS.join(', ')}`) })
      .default('parentbased_always_on'),
    OTEL_TRACES_SAMPLER_ARG: ratio,
  },
  read: (e): OtelSettingsGroup => {
    // Both lists are parsed whether tracing is on or not: a broken value is a broken deployment.
    const headers = {
      ...keyValueList(e.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS', true),
      ...keyValueList(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', true),
    };
    const resource = keyValueList(e.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES', false);
    const tracesUrl =
      e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      (e.OTEL_EXPORTER_OTLP_ENDPOINT === null ? null : tracesUrlOf(e.OTEL_EXPORTER_OTLP_ENDPOINT));
    if (tracesUrl === null || e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none') return { otel: null };
    return {
      otel: Object.freeze({
        tracesUrl,
        protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
        headers: Object.freeze(headers),
        timeoutMs: e.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? e.OTEL_EXPORTER_OTLP_TIMEOUT,
        compression: e.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? e.OTEL_EXPORTER_OTLP_COMPRESSION ?? 'none',
        serviceName: e.OTEL_SERVICE_NAME ?? resource['service.name'] ?? 'tai-interactions',
        resourceAttributes: Object.freeze(resource),
        sampler: e.OTEL_TRACES_SAMPLER,
        samplerRatio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
      }),
    };
  },
});
