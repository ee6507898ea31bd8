// The OTel settings (API.md §24): the standard variables, read once; tracing is on only with an
// endpoint and not disabled; every refusal is one line naming the variable, and the headers (a
// collector's token) are never quoted.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.ts';
import { OTEL_SAMPLERS } from '../../src/app/settings/otel.ts';

const ON = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318' };

function refused(env: Record<string, string>, variable: string): string {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const err = caught as ConfigError;
  expect(err.variable).toBe(variable);
  expect(err.message).not.toMatch(/[\r\n]/);
  return err.message;
}

describe('OTel settings', () => {
  it('are off without an endpoint, whatever else is set', () => {
    expect(loadConfig({}).otel).toBeNull();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).otel).toBeNull();
  });

  it('are off when disabled or when the exporter is none', () => {
    expect(loadConfig({ ...ON, OTEL_SDK_DISABLED: 'true' }).otel).toBeNull();
    expect(loadConfig({ ...ON, OTEL_TRACES_EXPORTER: 'none' }).otel).toBeNull();
    expect(
      loadConfig({ ...ON, OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' }).otel,
    ).not.toBeNull();
  });

  it('default to OTLP/HTTP protobuf at <endpoint>/v1/traces, parent-based always-on, 10 s', () => {
    expect(loadConfig(ON).otel).toEqual({
      tracesUrl: 'http://collector.internal:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
      compression: 'none',
      serviceName: 'tai-interactions',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
  });

  it('take the traces endpoint as given, and the per-signal settings over the general ones', () => {
    const otel = loadConfig({
      ...ON,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo.example/otlp/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20one,x-a=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20two',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-attrs',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).otel;
    expect(otel).toMatchObject({
      tracesUrl: 'https://tempo.example/otlp/v1/traces',
      protocol: 'http/json',
      headers: { authorization: 'Bearer two', 'x-a': '1' },
      timeoutMs: 3000,
      compression: 'gzip',
      serviceName: 'from-attrs',
      resourceAttributes: { 'deployment.environment': 'prod', 'service.name': 'from-attrs' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    expect(
      loadConfig({ ...ON, OTEL_SERVICE_NAME: 'named', OTEL_RESOURCE_ATTRIBUTES: 'service.name=x' }).otel
        ?.serviceName,
    ).toBe('named');
  });

  it('take a timeout from 1 to 600000 ms, and refuse one past either end', () => {
    expect(loadConfig({ ...ON, OTEL_EXPORTER_OTLP_TIMEOUT: '1' }).otel?.timeoutMs).toBe(1);
    expect(loadConfig({ ...ON, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '600000' }).otel?.timeoutMs).toBe(600_000);
    refused({ ...ON, OTEL_EXPORTER_OTLP_TIMEOUT: '0' }, 'OTEL_EXPORTER_OTLP_TIMEOUT');
    expect(
      refused({ ...ON, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '600001' }, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT'),
    ).toContain('from 1 to 600000');
  });

  it('take a sampler ratio from 0 to 1, and refuse one past either end', () => {
    expect(loadConfig({ ...ON, OTEL_TRACES_SAMPLER_ARG: '0' }).otel?.samplerRatio).toBe(0);
    expect(loadConfig({ ...ON, OTEL_TRACES_SAMPLER_ARG: '1' }).otel?.samplerRatio).toBe(1);
    refused({ ...ON, OTEL_TRACES_SAMPLER_ARG: '1.01' }, 'OTEL_TRACES_SAMPLER_ARG');
    refused({ ...ON, OTEL_TRACES_SAMPLER_ARG: '-0.01' }, 'OTEL_TRACES_SAMPLER_ARG');
  });

  it('refuse an unknown sampler, exporter, protocol or scheme, listing the valid choices', () => {
    const sampler = refused({ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'OTEL_TRACES_SAMPLER');
    for (const s of OTEL_SAMPLERS) expect(sampler).toContain(s);
    expect(refused({ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER')).toContain('otlp or none');
    expect(refused({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL')).toContain(
      'http/protobuf, http/json',
    );
    refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    refused({ OTEL_SDK_DISABLED: 'maybe' }, 'OTEL_SDK_DISABLED');
  });

  it('refuse a malformed header list without quoting it (it may hold a token)', () => {
    const message = refused(
      { ...ON, OTEL_EXPORTER_OTLP_HEADERS: 'authorization: Bearer s3cr3t' },
      'OTEL_EXPORTER_OTLP_HEADERS',
    );
    expect(message).not.toContain('s3cr3t');
    const bad = refused(
      { ...ON, OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x=%E0%A4%A' },
      'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
    );
    expect(bad).not.toContain('%E0');
  });
});
