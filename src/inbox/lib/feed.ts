// The live feed: the `pendingQuestions` subscription over GraphQL-over-SSE in distinct-
// connections mode on /graphql (one stateless stream, so any instance behind any load balancer
// can serve it; the single-connection mode keeps its streams in one process). The server sends a SNAPSHOT of every pending question first, on
// every (re)connect, then one event per change; there is no resume, so each SNAPSHOT replaces
// the list. A dropped connection is retried for ever with capped, jittered backoff and shows as
// "reconnecting" until the next SNAPSHOT arrives. A refused key stops the feed for good.
import { type Client, createClient, type ExecutionResult } from 'graphql-sse';
import { backoffDelay, type RetryPolicy, sleep } from '../../client/backoff.ts';
import { UnauthenticatedError } from '../../client/errors.ts';
import { InboxFeedDocument, type InboxFeedSubscription } from '../../client/generated/graphql.ts';
import { lineAlignedFetch } from '../../client/sse-lines.ts';
import { errorFromResponse, type FetchLike, type Transport } from '../../client/transport.ts';
import type { FeedEvent } from './model.ts';

export type FeedStatus = 'connecting' | 'live' | 'reconnecting';

export interface FeedHandlers {
  event(event: FeedEvent): void;
  status(status: FeedStatus): void;
  /** The key was refused: the feed has stopped. */
  unauthorized(): void;
  /** An error the server sent on the feed (null once a SNAPSHOT arrives again). */
  problem(message: string | null): void;
}

/** The SDK's backoff, from 0.5 s up to 15 s; a page never gives up on its feed. */
export const FEED_RETRY: RetryPolicy = {
  minDelayMs: 500,
  maxDelayMs: 15_000,
  giveUpAfterMs: Number.POSITIVE_INFINITY,
};

/** Opens the feed on the inbox's transport; returns the function that closes it. */
export function openFeed(api: Transport, handlers: FeedHandlers): () => void {
  const h = handlers;
  const baseFetch = api.fetch;
  const backoff = (attempt: number): number => backoffDelay(FEED_RETRY, attempt);
  let stopped = false;
  let client: Client<false> | null = null;
  let unsubscribe: (() => void) | null = null;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let restarts = 0;

  function stop(): void {
    if (stopped) return;
    stopped = true;
    clearTimeout(restartTimer);
    unsubscribe?.();
    client?.dispose();
  }

  function refused(): void {
    if (stopped) return;
    stop();
    h.unauthorized();
  }

  const guardedFetch: FetchLike = async (input, init) => {
    const res = await baseFetch(input, init);
    if (res.status === 401) refused();
    return res;
  };

  function onResult(result: ExecutionResult<InboxFeedSubscription>): void {
    if (stopped) return;
    if (result.errors && result.errors.length > 0) {
      const err = errorFromResponse(200, { errors: result.errors });
      if (err instanceof UnauthenticatedError) refused();
      else h.problem(err.message);
      return;
    }
    const event = result.data?.pendingQuestions;
    if (!event) return;
    restarts = 0;
    if (event.type === 'SNAPSHOT') {
      h.status('live');
      h.problem(null);
    }
    h.event(event);
  }

  /** The subscription itself ended (completed or failed for good): start a new client. */
  function restart(): void {
    if (stopped) return;
    h.status('reconnecting');
    unsubscribe = null;
    client?.dispose();
    client = null;
    restartTimer = setTimeout(start, backoff(restarts++));
  }

  function start(): void {
    if (stopped) return;
    client = createClient({
      singleConnection: false,
      url: api.endpoint,
      headers: () => api.authHeaders(),
      credentials: 'omit',
      // Each message as soon as its bytes are in, not when a chunk happens to end a line.
      fetchFn: lineAlignedFetch(guardedFetch),
      retryAttempts: Number.POSITIVE_INFINITY,
      retry: async (retries) => {
        if (!stopped) h.status('reconnecting');
        await sleep(backoff(retries));
      },
      on: {
        connecting: (reconnecting) => {
          if (reconnecting && !stopped) h.status('reconnecting');
        },
      },
    });
    unsubscribe = client.subscribe<InboxFeedSubscription>(
      { query: String(InboxFeedDocument) },
      { next: onResult, error: restart, complete: restart },
    );
  }

  h.status('connecting');
  start();
  return stop;
}
