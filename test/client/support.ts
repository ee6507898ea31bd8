// Helpers for the SDK tests: a listening server on the private Redis, SDK clients for the test
// principals, and a fetch that lets a test see (and, to simulate a dropped connection, lose)
// the SDK's GraphQL exchanges with the real server.
import {
  type AskInput,
  type ClientOptions,
  createInteractionsClient,
  type InteractionsClient,
  type Question,
} from '../../src/client/index.ts';
import type { FetchLike } from '../../src/client/transport.ts';
import { KEYS, startServer, type TestServer, type TestServerOptions, type Who } from '../support/server.ts';

/** Short backoff so retries in tests take milliseconds. */
export const FAST_RETRY = { minDelayMs: 10, maxDelayMs: 100, giveUpAfterMs: 20_000 };

export async function listening(o: Partial<TestServerOptions> = {}): Promise<TestServer & { url: string }> {
  const t = await startServer({ store: 'redis', ...o });
  await t.listen();
  return t as TestServer & { url: string };
}

export function clientAs(
  url: string,
  who: Who,
  extra: Partial<Omit<ClientOptions, 'url' | 'apiKey'>> = {},
): InteractionsClient {
  return createInteractionsClient({ url, apiKey: KEYS[who], retry: FAST_RETRY, ...extra });
}

export interface Exchange {
  phase: 'request' | 'response';
  /** The GraphQL operation name, e.g. `ClientAwaitAnswer`. */
  op: string;
  status?: number;
  body?: unknown;
}

export interface Tap {
  fetch: FetchLike;
  /** Resolves with the next exchange `match` accepts (registered now, so nothing earlier counts). */
  next(match: (e: Exchange) => boolean): Promise<Exchange>;
  /** Every exchange so far. */
  log: Exchange[];
  /**
   * Lose the response of the next `count` calls of `op`: the request reaches the server and is
   * processed, then the SDK sees a network failure, as when a connection drops mid-response.
   */
  dropResponses(op: string, count: number): void;
}

function operationOf(body: unknown): string {
  if (typeof body !== 'string') return '';
  try {
    const query = (JSON.parse(body) as { query?: unknown }).query;
    return typeof query === 'string'
      ? (/\b(?:query|mutation|subscription)\s+(\w+)/.exec(query)?.[1] ?? '')
      : '';
  } catch {
    return '';
  }
}

export function tap(): Tap {
  const waiters = new Set<{ match: (e: Exchange) => boolean; resolve: (e: Exchange) => void }>();
  const drops = new Map<string, number>();
  const log: Exchange[] = [];
  const emit = (e: Exchange): void => {
    log.push(e);
    for (const w of [...waiters]) {
      if (w.match(e)) {
        waiters.delete(w);
        w.resolve(e);
      }
    }
  };
  const fetchFn: FetchLike = async (input, init) => {
    // Only GraphQL POSTs to /graphql are observed; the graphql-sse stream passes untouched.
    if (!input.endsWith('/graphql')) return fetch(input, init);
    const op = operationOf(init.body);
    emit({ phase: 'request', op });
    const res = await fetch(input, init);
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    emit({ phase: 'response', op, status: res.status, body });
    const left = drops.get(op) ?? 0;
    if (left > 0) {
      drops.set(op, left - 1);
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      });
    }
    return new Response(text, { status: res.status, headers: res.headers });
  };
  return {
    fetch: fetchFn,
    log,
    next: (match) => new Promise((resolve) => waiters.add({ match, resolve })),
    dropResponses(op, count) {
      drops.set(op, count);
    },
  };
}

/** How many questions the admin sees on this server's prefix. */
export async function questionCount(url: string): Promise<number> {
  return (await clientAs(url, 'admin').questionsPage({ first: 1 })).totalCount;
}

/**
 * Questions asked in the background and left pending (the test answers, cancels or ignores
 * them). `stop()` ends every wait still running, so no retry loop outlives its test.
 */
export function backgroundAsks() {
  const controller = new AbortController();
  return {
    /** Asks and resolves with the question as soon as it is recorded. */
    pending(client: InteractionsClient, input: AskInput): Promise<Question> {
      return new Promise((resolve, reject) => {
        client.askUser(input, { signal: controller.signal, onAsked: resolve }).catch((err: unknown) => {
          if (!controller.signal.aborted) reject(err);
        });
      });
    },
    signal: controller.signal,
    stop: () => controller.abort(new Error('test finished')),
  };
}
