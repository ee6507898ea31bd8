// GraphQL over HTTP with fetch: one POST per operation, the document sent as its text (the
// generated documents are strings), errors turned into the SDK's error classes. Browser-safe
// (fetch and AbortSignal only): the inbox uses it too.

import {
  errorFromCode,
  type InteractionsError,
  InternalError,
  isApiErrorCode,
  NetworkError,
  UnavailableError,
} from './errors.ts';
import type { TypedDocumentString } from './generated/graphql.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:4000` (a trailing `/graphql` is tolerated). */
  url: string;
  apiKey?: string | undefined;
  fetch?: FetchLike | undefined;
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** Give up on one response after this long (a silent, half-open connection): a NetworkError. */
  timeoutMs?: number | undefined;
}

interface WireError {
  message?: unknown;
  extensions?: { code?: unknown; field?: unknown };
}

/** The server's base URL without trailing slashes or a trailing `/graphql`. */
export function baseUrlOf(url: string): string {
  let base = url.trim();
  try {
    new URL(base);
  } catch {
    throw new TypeError(`not an absolute URL: ${JSON.stringify(url)}`);
  }
  base = base.replace(/\/+$/, '');
  if (base.endsWith('/graphql')) base = base.slice(0, -'/graphql'.length);
  return base;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/** A failed response as an SDK error: GraphQL `errors`, a REST `{error, code}` body, or the status alone. */
export function errorFromResponse(status: number, body: unknown): InteractionsError {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const errors = Array.isArray(record.errors) ? (record.errors as WireError[]) : [];
  const first = errors[0];
  if (first) {
    const ext = first.extensions ?? {};
    const field = typeof ext.field === 'string' ? ext.field : undefined;
    const code = ext.code ?? (status === 401 ? 'UNAUTHENTICATED' : undefined);
    return errorFromCode(code, text(first.message, 'the server refused the request'), { field, status });
  }
  if (isApiErrorCode(record.code)) {
    const field = typeof record.field === 'string' ? record.field : undefined;
    return errorFromCode(record.code, text(record.error, 'the server refused the request'), {
      field,
      status,
    });
  }
  if (status === 401) return errorFromCode('UNAUTHENTICATED', 'missing or unknown API key', { status });
  if (status === 502 || status === 503 || status === 504) {
    return new NetworkError(`the server is unavailable (HTTP ${status})`, { status });
  }
  return new InternalError(`unexpected response from the server (HTTP ${status})`, { status });
}

export class Transport {
  readonly baseUrl: string;
  readonly endpoint: string;
  readonly fetch: FetchLike;
  readonly #apiKey: string | undefined;

  constructor({ url, apiKey, fetch }: TransportOptions) {
    this.baseUrl = baseUrlOf(url);
    this.endpoint = `${this.baseUrl}/graphql`;
    this.fetch = fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#apiKey = apiKey;
  }

  /** The credential headers (none when no key is configured, for servers without access control). */
  authHeaders(): Record<string, string> {
    return this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {};
  }

  async request<R, V>(
    doc: TypedDocumentString<R, V>,
    variables: V,
    { signal: callerSignal, timeoutMs }: RequestOptions = {},
  ): Promise<R> {
    const o = { signal: callerSignal, timeoutMs };
    const timeout = o.timeoutMs === undefined ? null : AbortSignal.timeout(o.timeoutMs);
    const signals = [o.signal, timeout].filter((s): s is AbortSignal => s != null);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    let res: Response;
    let raw: string;
    try {
      res = await this.fetch(this.endpoint, {
        method: 'POST',
        headers: {
          ...this.authHeaders(),
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json;q=0.9',
        },
        body: JSON.stringify({ query: String(doc), variables }),
        ...(signal ? { signal } : {}),
      });
      raw = await res.text();
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason;
      if (timeout?.aborted) {
        throw new NetworkError(`no response from ${this.endpoint} within ${o.timeoutMs} ms`, { cause: err });
      }
      throw new NetworkError(`cannot reach ${this.endpoint}: ${describe(err)}`, { cause: err });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw errorFromResponse(res.status, null);
    }
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    if ((Array.isArray(record.errors) && record.errors.length > 0) || !res.ok) {
      throw errorFromResponse(res.status, body);
    }
    if (typeof record.data !== 'object' || record.data === null) {
      throw new InternalError('the server sent no data', { status: res.status });
    }
    return record.data as R;
  }
}

/** The innermost message of a fetch failure (undici hides the socket error under `cause`). */
function describe(err: unknown): string {
  let e: unknown = err;
  let message = 'network error';
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    const code = (e as { code?: unknown }).code;
    message = typeof code === 'string' ? `${code}` : e.message;
    e = e.cause;
  }
  return message;
}

/**
 * Failures worth another attempt: the server was unreachable, or failed in a way that may pass
 * (INTERNAL, or UNAVAILABLE: its store did not respond).
 */
export function isTransient(err: unknown): boolean {
  return err instanceof NetworkError || err instanceof InternalError || err instanceof UnavailableError;
}
