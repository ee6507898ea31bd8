// Subscription fields: the inbox feed and the one-shot wait for a resolution.

import type { AskResult as AskResultShape } from '../../engine/types.ts';
import { openFeed } from '../../engine/views/feed.ts';
import { awaitResolution } from '../../engine/waiting/resolution.ts';
import { builder } from '../builder.ts';
import { shareResults } from '../shared-results.ts';
import { AskResult } from '../types/ask-result.ts';
import { InboxEvent } from '../types/inbox-event.ts';

/**
 * An iterator that yields the value `run` produces (if any) once, then completes. Returning it
 * early (the client unsubscribed or went away) aborts `run` through its signal.
 */
function once<T>(
  run: (signal: AbortSignal) => Promise<T | null>,
  outer: AbortSignal,
): AsyncIterableIterator<T> {
  // The request's signal may come from the fetch implementation Yoga was given, not Node's own
  // (the graphql-sse stream's requests do): Node 24's AbortSignal.any refuses such a signal
  // ("signals[1] is not of type AbortSignal"), so the outer signal is followed by hand.
  const controller = new AbortController();
  const signal = controller.signal;
  const onOuterAbort = (): void => controller.abort(outer.reason);
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener('abort', onOuterAbort, { once: true });
  const settle = (): void => outer.removeEventListener('abort', onOuterAbort);
  let started = false;
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const iterator: AsyncIterableIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      if (started || signal.aborted) return finished;
      started = true;
      try {
        const value = await run(signal);
        return value === null || signal.aborted ? finished : { done: false, value };
      } finally {
        settle();
      }
    },
    async return(): Promise<IteratorResult<T>> {
      started = true;
      settle();
      controller.abort();
      return finished;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

builder.subscriptionFields((t) => ({
  pendingQuestions: t.field({
    type: InboxEvent,
    description:
      'The inbox feed: a SNAPSHOT of every pending question the caller may see on every (re)connect, then one event per change.',
    authScopes: { authenticated: true },
    // With the people the caller acts for now (API.md §22), read once per (re)connect.
    subscribe: async (_root, _args, ctx) =>
      shareResults(ctx, openFeed(ctx.engine, await ctx.engine.presence.acting(ctx.principal))),
    resolve: (event) => event,
  }),
  questionResolved: t.field({
    type: AskResult,
    description:
      'One event when the question leaves PENDING (answered, timed out or cancelled), then complete.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'The question’s id.' }) },
    subscribe: (_root, { id }, ctx) =>
      once<AskResultShape>(
        (signal) => awaitResolution(ctx.engine, ctx.principal, String(id), signal),
        ctx.signal,
      ),
    resolve: (result) => result,
  }),
}));
