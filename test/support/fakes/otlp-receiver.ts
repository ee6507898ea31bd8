// A loopback OTLP/HTTP trace receiver (what an OpenTelemetry Collector's otlphttp receiver is to
// the server): POST /v1/traces, answered 200 with an empty ExportTraceServiceResponse. JSON
// payloads (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) are decoded into flat spans; every body is
// kept raw, so a test can scan everything that left the server. Waiters are registered before
// requests arrive, so nothing polls.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};
type KeyValue = { key: string; value: AnyValue };

export type Attrs = Record<string, string | number | boolean>;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** Epoch ms (from the nanosecond fields). */
  start: number;
  end: number;
  attributes: Attrs;
  events: { name: string; at: number; attributes: Attrs }[];
  resource: Attrs;
  scope: string;
}

export interface OtlpRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface OtlpReceiver {
  /** The base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); traces go to `${url}/v1/traces`. */
  url: string;
  requests: OtlpRequest[];
  spans: ReceivedSpan[];
  /** Resolves with the first span (received already or later) that `pred` accepts. */
  waitForSpan(pred: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan>;
  /** Resolves with the first request (received already or later) that `pred` accepts. */
  waitForRequest(pred: (r: OtlpRequest) => boolean): Promise<OtlpRequest>;
  /** Answer the next `n` exports with 503. */
  failNext(n: number): void;
  close(): Promise<void>;
}

function anyValueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return '';
}

function attrsOf(list: KeyValue[] | undefined): Attrs {
  const out: Attrs = {};
  for (const kv of list ?? []) out[kv.key] = anyValueOf(kv.value);
  return out;
}

const msOf = (nanos: string | number): number => Number(BigInt(nanos) / 1_000_000n);

/** The spans of an OTLP/JSON ExportTraceServiceRequest. */
export function spansOfJson(body: Buffer): ReceivedSpan[] {
  // biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON shape, read field by field.
  const req = JSON.parse(body.toString('utf8')) as any;
  const out: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const resource = attrsOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          start: msOf(s.startTimeUnixNano),
          end: msOf(s.endTimeUnixNano),
          attributes: attrsOf(s.attributes),
          events: (s.events ?? []).map(
            (e: { name: string; timeUnixNano: string; attributes?: KeyValue[] }) => ({
              name: e.name,
              at: msOf(e.timeUnixNano),
              attributes: attrsOf(e.attributes),
            }),
          ),
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpRequest[] = [];
  const spans: ReceivedSpan[] = [];
  const spanWaiters: { pred: (s: ReceivedSpan) => boolean; resolve(s: ReceivedSpan): void }[] = [];
  const requestWaiters: { pred: (r: OtlpRequest) => boolean; resolve(r: OtlpRequest): void }[] = [];
  let failures = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: OtlpRequest = {
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      if (failures > 0) {
        failures--;
        res.writeHead(503).end();
        return;
      }
      requests.push(received);
      const json = String(req.headers['content-type'] ?? '').startsWith('application/json');
      const got = json ? spansOfJson(received.body) : [];
      spans.push(...got);
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
      for (const w of [...requestWaiters]) {
        if (w.pred(received)) {
          requestWaiters.splice(requestWaiters.indexOf(w), 1);
          w.resolve(received);
        }
      }
      for (const s of got) {
        for (const w of [...spanWaiters]) {
          if (w.pred(s)) {
            spanWaiters.splice(spanWaiters.indexOf(w), 1);
            w.resolve(s);
          }
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans,
    waitForSpan(pred) {
      const found = spans.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => spanWaiters.push({ pred, resolve }));
    },
    waitForRequest(pred) {
      const found = requests.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => requestWaiters.push({ pred, resolve }));
    },
    failNext(n) {
      failures = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
