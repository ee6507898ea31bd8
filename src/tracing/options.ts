// What the trace exporter is configured with (src/app/settings/otel.ts reads it from the OTEL_*
// variables). Kept apart from otel.ts, which imports the SDK: the settings module needs these
// names at start whether or not tracing is on, and must not load the SDK to get them.
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The samplers of the OTel specification this server offers (OTEL_TRACES_SAMPLER). */
export const OTEL_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type OtelSamplerName = (typeof OTEL_SAMPLERS)[number];

export interface OtelSettings {
  /** Where spans are POSTed: the traces endpoint as given, or the base endpoint + `/v1/traces`. */
  readonly tracesUrl: string;
  readonly protocol: OtlpProtocol;
  /** Sent with every export (a collector's token, say). Never logged. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly compression: 'gzip' | 'none';
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: OtelSamplerName;
  /** The ratio of the `traceidratio` samplers (0 to 1). */
  readonly samplerRatio: number;
}
