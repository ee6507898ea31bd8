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
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, outer]);
  let started = false;
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const iterator: AsyncIterableIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      if (started || signal.aborted) return finished;
      started = true;
      const value = await run(signal);
      return value === null || controller.signal.aborted ? finished : { done: false, value };
    },
    async return(): Promise<IteratorResult<T>> {
      started = true;
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
    subscribe: (_root, _args, ctx) => shareResults(ctx, openFeed(ctx.engine, ctx.principal)),
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
