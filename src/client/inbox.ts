// The live inbox feed (`pendingQuestions`) over GraphQL-over-SSE in distinct-connections mode
// on /graphql: one stateless stream, so any instance behind any load balancer serves it (the
// single-connection mode at /graphql/stream keeps streams in one process). The server sends a
// SNAPSHOT of the pending questions on every connect (a large backlog in parts, see `more`),
// then one event per change; when the connection drops or the server ends the stream (it does
// so to resynchronise a consumer), this subscribes again and the next SNAPSHOT brings the
// consumer back in step. A refused credential ends the feed with its error.

import { backoffDelay, type RetryPolicy, sleep } from './backoff.ts';
import { errorFromCode, type InteractionsError } from './errors.ts';
import {
  ClientPendingQuestionsDocument,
  type ClientPendingQuestionsSubscription,
} from './generated/graphql.ts';
import { lineAlignedFetch } from './sse-lines.ts';
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
    // GraphQL errors for the operation itself: only INTERNAL and UNAVAILABLE may pass on a retry.
    const first = error[0] as
      | { message?: string; extensions?: { code?: unknown; field?: unknown } }
      | undefined;
    const code = first?.extensions?.code;
    if (code === 'INTERNAL' || code === 'UNAVAILABLE' || code === undefined) return null;
    const field = typeof first?.extensions?.field === 'string' ? first.extensions.field : undefined;
    return errorFromCode(code, first?.message ?? 'the feed was refused', { field });
  }
  return null;
}

/** What the consumer reads and the connection loop writes. */
interface FeedState {
  readonly queue: InboxEvent[];
  /** The error that ended the feed, thrown once to the consumer. */
  failure: unknown;
  closed: boolean;
  /** Aborted at close: ends a pending reconnect delay. */
  readonly stop: AbortController;
  /** Ends the live subscription, if one is open. */
  dispose: (() => void) | null;
  /** Wakes a consumer waiting in `changed()`. */
  notify(): void;
  changed(): Promise<void>;
  close(): void;
  fail(error: unknown): void;
}

function createFeedState(): FeedState {
  let wake: (() => void) | null = null;
  const state: FeedState = {
    queue: [],
    failure: null,
    closed: false,
    stop: new AbortController(),
    dispose: null,
    notify() {
      const w = wake;
      wake = null;
      w?.();
    },
    changed: () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      }),
    close() {
      if (state.closed) return;
      state.closed = true;
      state.stop.abort();
      state.dispose?.();
      state.notify();
    },
    fail(error) {
      state.failure = error;
      state.closed = true;
      state.notify();
    },
  };
  return state;
}

/** One subscription, until it ends, fails, overflows or is closed. */
function subscribeOnce(
  sse: GraphqlSse,
  transport: Transport,
  state: FeedState,
  delivered: () => void,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const client = sse.createClient({
      url: transport.endpoint,
      singleConnection: false,
      retryAttempts: 0,
      headers: () => transport.authHeaders(),
      // Each message as soon as its bytes are in, not when a chunk happens to end a line.
      fetchFn: lineAlignedFetch(transport.fetch),
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
          if (state.queue.length >= MAX_QUEUED) {
            state.queue.length = 0;
            resolve({ kind: 'restart' });
            return;
          }
          delivered();
          state.queue.push({ type: event.type, questions: event.questions, more: event.more });
          state.notify();
        },
        error: (error) => resolve({ kind: 'error', error }),
        complete: () => resolve({ kind: 'ended' }),
      },
    );
    state.dispose = () => {
      unsubscribe();
      client.dispose();
      resolve({ kind: 'ended' });
    };
  });
}

/** Subscribes again after every end or failure until closed or refused. */
async function runFeed(
  transport: Transport,
  policy: RetryPolicy,
  options: SubscribeInboxOptions,
  state: FeedState,
): Promise<void> {
  // Loaded on first use, so programs that never subscribe do not pay for it.
  const sse = await import('graphql-sse');
  let attempt = 0;
  while (!state.closed) {
    let delivered = false;
    const outcome = await subscribeOnce(sse, transport, state, () => {
      delivered = true;
    });
    state.dispose?.();
    state.dispose = null;
    if (state.closed) break;
    const error = outcome.kind === 'error' ? outcome.error : null;
    const refused = error === null ? null : fatal(error, sse);
    if (refused) {
      state.fail(refused);
      break;
    }
    options.onReconnect?.(error ?? new Error('the feed ended'));
    // A feed that delivered reconnects after the shortest delay; one that keeps failing backs off.
    if (delivered) attempt = 0;
    const delay = outcome.kind === 'restart' ? 0 : backoffDelay(policy, attempt++);
    try {
      await sleep(delay, state.stop.signal);
    } catch {
      break;
    }
  }
}

function iterate(state: FeedState): AsyncIterator<InboxEvent> {
  return {
    async next(): Promise<IteratorResult<InboxEvent>> {
      for (;;) {
        const event = state.queue.shift();
        if (event) return { value: event, done: false };
        if (state.failure) {
          const error = state.failure;
          state.failure = null;
          throw error;
        }
        if (state.closed) return { value: undefined, done: true };
        await state.changed();
      }
    },
    async return(): Promise<IteratorResult<InboxEvent>> {
      state.close();
      return { value: undefined, done: true };
    },
  };
}

export function subscribeInbox(
  transport: Transport,
  policy: RetryPolicy,
  options: SubscribeInboxOptions = {},
): InboxSubscription {
  const state = createFeedState();
  options.signal?.addEventListener('abort', state.close, { once: true });
  if (options.signal?.aborted) state.close();
  runFeed(transport, policy, options, state).catch((err: unknown) => state.fail(err));
  return {
    close: state.close,
    [Symbol.asyncIterator]: () => iterate(state),
  };
}
