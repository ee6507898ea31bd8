// Streams of the graphql-sse single-connection mode (/graphql/stream) as we track them beside
// the library, which keeps its own streams in a private map with no size or age bound.
// Tokens come from the CSPRNG (the library's default uses Math.random and accepts a token
// from anyone) and are bound to the key that reserved them, so another key holding one finds
// no stream (the library's own 404). Reservations are capped per key and in total, and expire
// when not opened in time; every token we forget is handed to `drop`, which removes it from
// the library too. Each stream (and each distinct-connection response) counts the events made
// for it and those written to its connection, so a reader that falls behind can be cut off.
import { randomUUID } from 'node:crypto';
import type { Response as SseResponse } from 'graphql-sse';
import type { Principal } from '../domain/principal.ts';

export const TOKEN_HEADER = 'x-graphql-event-stream-token';

export interface StreamLimits {
  /** Events made for a stream and not yet written to its connection before it is cut off (the feed's cap). */
  maxBehind: number;
  /** Reservations (unopened or open) one key holds at once. */
  perKey: number;
  /** Reservations held at once across every key. */
  total: number;
  /** A reservation not opened within this is forgotten. */
  reservationTtlMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxBehind: 1_000,
  perKey: 8,
  total: 10_000,
  reservationTtlMs: 30_000,
};

/** One event stream: a reservation (token) or a distinct-connection response (token null). */
export interface StreamState {
  readonly token: string | null;
  readonly owner: string;
  /** `next` events handed to the library for this stream. */
  produced: number;
  /** `next` events the library's response body handed on towards the socket. */
  written: number;
  opened: boolean;
}

export const behind = (s: StreamState): number => s.produced - s.written;

interface StreamRequest {
  raw: Request;
  method: string;
  url: string;
  headers: { get(name: string): string | null | undefined };
}

/** A 429 in the shape of our other GraphQL errors (docs/API.md §3). */
function overLimit(message: string): SseResponse {
  return [
    JSON.stringify({ errors: [{ message, extensions: { code: 'LIMIT_EXCEEDED' } }] }),
    {
      status: 429,
      statusText: 'Too Many Requests',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    },
  ];
}

export function createStreamTokens(
  principalOf: (request: Request) => Principal,
  limits: StreamLimits,
  drop: (token: string) => void,
) {
  /** Reservations by token, oldest first. */
  const reservations = new Map<string, StreamState>();
  const timers = new Map<string, NodeJS.Timeout>();
  const byRequest = new WeakMap<Request, StreamState>();
  /** Our own requests that end a token inside the library (they carry no key). */
  const internal = new WeakSet<Request>();

  // graphql-sse's own response shape: [body, init].
  const notFound = (): SseResponse => ['Stream not found', { status: 404, statusText: 'Not Found' }];

  function forget(s: StreamState, fromLibrary: boolean): void {
    if (s.token === null || reservations.get(s.token) !== s) return;
    reservations.delete(s.token);
    clearTimeout(timers.get(s.token));
    timers.delete(s.token);
    if (fromLibrary) drop(s.token);
  }

  /** The oldest unopened reservation (of one owner, or of anyone). */
  function oldestUnopened(owner?: string): StreamState | undefined {
    for (const s of reservations.values())
      if (!s.opened && (owner === undefined || s.owner === owner)) return s;
    return undefined;
  }

  function reserve(owner: string): string | SseResponse {
    let held = 0;
    for (const s of reservations.values()) if (s.owner === owner) held++;
    if (held >= limits.perKey) {
      const evict = oldestUnopened(owner);
      if (!evict) {
        return overLimit(`A key holds at most ${limits.perKey} streams at once`);
      }
      forget(evict, true);
    }
    if (reservations.size >= limits.total) {
      const evict = oldestUnopened();
      if (!evict) return overLimit('Too many streams are open; try again later');
      forget(evict, true);
    }
    const token = randomUUID();
    const s: StreamState = { token, owner, produced: 0, written: 0, opened: false };
    reservations.set(token, s);
    const timer = setTimeout(() => forget(s, true), limits.reservationTtlMs);
    timer.unref();
    timers.set(token, timer);
    return token;
  }

  return {
    /** graphql-sse's `authenticate`: which stream a request is for, or the response refusing it. */
    authenticate(req: StreamRequest): string | SseResponse {
      const given = req.headers.get(TOKEN_HEADER) ?? new URL(req.url, 'http://x/').searchParams.get('token');
      if (internal.has(req.raw) && given) return given;
      const principal = principalOf(req.raw);
      // A PUT always reserves a fresh stream, whatever token it carries: graphql-sse's client in
      // single-connection mode keeps the old token in its headers and sends it again on the PUT
      // that reconnects; refusing it (the stream is gone) would break the client for good.
      // graphql-sse's own handler does the same, except that the token is always ours.
      if (req.method === 'PUT') return reserve(principal.id);
      if (!given) {
        // Distinct-connection mode (or a request the library refuses): a stream of its own.
        byRequest.set(req.raw, { token: null, owner: principal.id, produced: 0, written: 0, opened: true });
        return randomUUID();
      }
      const s = reservations.get(given);
      if (!s || s.owner !== principal.id) return notFound();
      byRequest.set(req.raw, s);
      if (req.headers.get('accept') === 'text/event-stream') {
        // Opened: it no longer expires (a second open is the library's 409).
        s.opened = true;
        clearTimeout(timers.get(given));
        timers.delete(given);
      } else if (req.method !== 'DELETE' && behind(s) >= limits.maxBehind) {
        return overLimit(
          `The stream is ${limits.maxBehind} events behind its reader; read it before adding operations`,
        );
      }
      return given;
    },
    /** The stream a request that passed `authenticate` belongs to. */
    stateOf: (request: Request): StreamState | undefined => byRequest.get(request),
    /** The stream's connection ended: the library has already let go of the token. */
    closed(s: StreamState): void {
      forget(s, false);
    },
    /** Marks a request as ours (see `drop`). */
    markInternal(request: Request): void {
      internal.add(request);
    },
    /** Tokens held now (for tests and metrics). */
    size: (): number => reservations.size,
  };
}
