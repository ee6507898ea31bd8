// The live inbox feed (`pendingQuestions`) over GraphQL-over-SSE in distinct-connections mode
// on /graphql: one stateless stream, so any instance behind any load balancer serves it (the
// single-connection mode at /graphql/stream keeps streams in one process). The server sends a SNAPSHOT of every pending question on every connect, then
// one event per change; when the connection drops or the server ends the stream (it does so to
// resynchronise a consumer), this subscribes again and the next SNAPSHOT brings the consumer
// back in step. A refused credential ends the feed with its error.

import { backoffDelay, type RetryPolicy, sleep } from './backoff.ts';
import { errorFromCode, type InteractionsError } from './errors.ts';
import {
  ClientPendingQuestionsDocument,
  type ClientPendingQuestionsSubscription,
} from './generated/graphql.ts';
import { errorFromResponse, type Transport } from './transport.ts';
import type { InboxEvent, InboxSubscription, SubscribeInboxOptions } from './types.ts';

/** Events held for a consumer that is not reading; past it the queue restarts from a fresh SNAPSHOT. */
const MAX_QUEUED = 1000;

type Outcome = { kind: 'ended' | 'restart' } | { kind: 'error'; error: unknown };

type GraphqlSse = typeof import('graphql-sse');

/** The error that ends the feed, or null when the failure is worth reconnecting after. */
function fatal(error: unknown, sse: GraphqlSse): InteractionsError | null {
  if (error instanceof sse.NetworkError) {
    const status = error.response?.status;
    if (status === 401 || status === 403 || status === 404) {
      return errorFromResponse(status, null);
    }
    return null;
  }
  if (Array.isArray(error)) {
    // GraphQL errors for the operation itself: only INTERNAL may pass on a retry.
    const first = error[0] as
      | { message?: string; extensions?: { code?: unknown; field?: unknown } }
      | undefined;
    const code = first?.extensions?.code;
    if (code === 'INTERNAL' || code === undefined) return null;
    const field = typeof first?.extensions?.field === 'string' ? first.extensions.field : undefined;
    return errorFromCode(code, first?.message ?? 'the feed was refused', { field });
  }
  return null;
}

export function subscribeInbox(
  transport: Transport,
  policy: RetryPolicy,
  options: SubscribeInboxOptions = {},
): InboxSubscription {
  const queue: InboxEvent[] = [];
  let failure: unknown = null;
  let closed = false;
  let wake: (() => void) | null = null;
  const stop = new AbortController();
  let dispose: (() => void) | null = null;

  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };

  const close = (): void => {
    if (closed) return;
    closed = true;
    stop.abort();
    dispose?.();
    notify();
  };
  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();

  /** One subscription, until it ends, fails, overflows or is closed. */
  function once(sse: GraphqlSse, delivered: () => void): Promise<Outcome> {
    return new Promise((resolve) => {
      const client = sse.createClient({
        url: transport.endpoint,
        singleConnection: false,
        retryAttempts: 0,
        headers: () => transport.authHeaders(),
        fetchFn: transport.fetch,
      });
      const unsubscribe = client.subscribe<ClientPendingQuestionsSubscription>(
        { query: String(ClientPendingQuestionsDocument) },
        {
          next(result) {
            if (result.errors?.length) {
              resolve({ kind: 'error', error: result.errors });
              return;
            }
            const event = result.data?.pendingQuestions;
            if (!event) return;
            if (queue.length >= MAX_QUEUED) {
              queue.length = 0;
              resolve({ kind: 'restart' });
              return;
            }
            delivered();
            queue.push({ type: event.type, questions: event.questions });
            notify();
          },
          error: (error) => resolve({ kind: 'error', error }),
          complete: () => resolve({ kind: 'ended' }),
        },
      );
      dispose = () => {
        unsubscribe();
        client.dispose();
        resolve({ kind: 'ended' });
      };
    });
  }

  async function run(): Promise<void> {
    // Loaded on first use, so programs that never subscribe do not pay for it.
    const sse = await import('graphql-sse');
    let attempt = 0;
    while (!closed) {
      let delivered = false;
      const outcome = await once(sse, () => {
        delivered = true;
      });
      dispose?.();
      dispose = null;
      if (closed) break;
      const error = outcome.kind === 'error' ? outcome.error : null;
      const refused = error === null ? null : fatal(error, sse);
      if (refused) {
        failure = refused;
        closed = true;
        notify();
        break;
      }
      options.onReconnect?.(error ?? new Error('the feed ended'));
      // A feed that delivered reconnects after the shortest delay; one that keeps failing backs off.
      if (delivered) attempt = 0;
      const delay = outcome.kind === 'restart' ? 0 : backoffDelay(policy, attempt++);
      try {
        await sleep(delay, stop.signal);
      } catch {
        break;
      }
    }
  }
  run().catch((err: unknown) => {
    failure = err;
    closed = true;
    notify();
  });

  return {
    close,
    [Symbol.asyncIterator](): AsyncIterator<InboxEvent> {
      return {
        async next(): Promise<IteratorResult<InboxEvent>> {
          for (;;) {
            const event = queue.shift();
            if (event) return { value: event, done: false };
            if (failure) {
              const error = failure;
              failure = null;
              throw error;
            }
            if (closed) return { value: undefined, done: true };
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
        },
        async return(): Promise<IteratorResult<InboxEvent>> {
          close();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
