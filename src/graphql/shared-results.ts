// One GraphQL execution per feed event for every subscriber who would get the same result.
// graphql-tools executes a subscription's selection set once per event per subscriber; a feed
// event (one shared object per store announcement, see engine/views/feed.ts) reaches every
// subscriber of this process, and the Question fields resolve the same for every principal
// (the engine already chose who sees the event). So the result is computed once per distinct
// (document, operation, variables, visibility) and handed to each of them, with its JSON built
// once too. A subscriber keeps its own source (its feed: bounds, order, known ids) and its own
// visibility: only the execution and the serialization are shared.

import type { Readable } from 'node:stream';
import { execute } from '@graphql-tools/executor';
import type { Plugin } from 'graphql-yoga';
import { visibilityScope } from '../domain/access.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { FeedEvent } from '../engine/types.ts';
import type { GraphQLContext } from './builder.ts';
import { type ExecutionArgs, type ExecutionResult, GraphQLError, Kind } from './graphql-js.ts';
import { AHEAD_MAX, executeByQuestion, MIN_SPLIT_QUESTIONS } from './question-fragments.ts';
import { type DirectResults, sseBody } from './sse-body.ts';

type Source<T> = AsyncIterator<T> & { return?(value?: unknown): Promise<IteratorResult<T>> };
/**
 * A source that can also hand out a ready event at once (engine/views/feed.ts: takeNow, onReady), and
 * show the backlog's questions still to come (upcoming).
 */
type DirectSource<T> = Source<T> & {
  takeNow?(): T | null | undefined;
  onReady?(ready: (() => void) | null): void;
  upcoming?(max: number): readonly QuestionRecord[];
};

/** The sources registered by `shareResults`, by the operation's context. */
const sources = new WeakMap<object, DirectSource<object>>();

/**
 * Used by a subscription field's `subscribe`: marks `source` as one whose events are shared
 * objects, so the plugin may execute each event once for all its subscribers.
 */
export function shareResults<S extends DirectSource<object>>(ctx: GraphQLContext, source: S): S {
  sources.set(ctx, source);
  return source;
}

/** Results by event, then by everything else a result depends on (see keyOf). */
const results = new WeakMap<object, Map<string, ExecutionResult | Promise<ExecutionResult>>>();
const documentIds = new WeakMap<object, number>();
let nextDocumentId = 0;

/** What the result of one event depends on besides the event. */
function keyOf(args: ExecutionArgs, ctx: GraphQLContext): string {
  let doc = documentIds.get(args.document);
  if (doc === undefined) {
    doc = nextDocumentId++;
    documentIds.set(args.document, doc);
  }
  const p = ctx.principal;
  // Resolvers below a feed event read no context; the roles and scope are kept in the key so
  // that a field gated by role, should one come, could never leak across principals.
  const visibility = [p.restricted, [...p.roles].sort(), visibilityScope(p)];
  return JSON.stringify([doc, args.operationName ?? null, args.variableValues ?? null, visibility]);
}

/** A result's JSON, built once: Yoga's SSE encoder calls `stringify` when a result has one. */
function withCachedJson(result: ExecutionResult, known: string | null = null): ExecutionResult {
  if (result.errors?.length || result.extensions) return result;
  let json = known;
  Object.defineProperty(result, 'stringify', {
    enumerable: false,
    value: (r: unknown): string => {
      if (r !== result) return JSON.stringify(r);
      json ??= JSON.stringify(result);
      return json;
    },
  });
  return result;
}

function isLargeFeedEvent(event: object): event is FeedEvent {
  const questions = (event as Partial<FeedEvent>).questions;
  return Array.isArray(questions) && questions.length >= MIN_SPLIT_QUESTIONS;
}

/** A part of one subscriber's backlog: its own event object, never shared. */
const isBacklogPart = (event: object): event is FeedEvent =>
  (event as { backlog?: unknown }).backlog === true;

function resultFor(
  event: object,
  args: ExecutionArgs,
  key: string,
  ahead?: () => readonly QuestionRecord[],
): ExecutionResult | Promise<ExecutionResult> {
  if (isBacklogPart(event)) {
    // From the per-question cache, the questions that follow executed with it when it must
    // be; not kept by event, as no other subscriber gets this object.
    const split = executeByQuestion(args, event, key, ahead);
    if (split) return withCachedJson(split.result, split.json);
  }
  let byKey = results.get(event);
  if (!byKey) {
    byKey = new Map();
    results.set(event, byKey);
  }
  let result = byKey.get(key);
  if (!result && isLargeFeedEvent(event)) {
    const split = executeByQuestion(args, event, key);
    if (split) {
      result = withCachedJson(split.result, split.json);
      byKey.set(key, result);
    }
  }
  if (!result) {
    // No signal: one subscriber leaving must not abort what the others receive.
    // The schema has no @defer/@stream, so a result is never incremental.
    const r = execute({ ...args, rootValue: event, signal: undefined }) as
      | ExecutionResult
      | Promise<ExecutionResult>;
    result = r instanceof Promise ? r.then(withCachedJson) : withCachedJson(r);
    byKey.set(key, result);
  }
  return result;
}

function operationOf(args: ExecutionArgs) {
  return args.document.definitions.find(
    (d) =>
      d.kind === Kind.OPERATION_DEFINITION &&
      (args.operationName == null || d.name?.value === args.operationName),
  );
}

type SharedStream = AsyncGenerator<ExecutionResult, undefined> & { direct: DirectResults | null };

/**
 * The subscriber's stream of results: its own source, each event's result shared. `original`
 * (graphql-tools' per-subscriber mapping of the same source, never pulled) is returned with it.
 * `direct` takes a ready result at once, for the SSE body to write in the same turn as the feed
 * event (no promise steps per subscriber); a result that needs Yoga's masking (it has errors) or
 * is still a promise is held for `next()`, which yields it first, so the order stays.
 */
function sharedStream(
  original: AsyncIterator<unknown> & { return?(): Promise<unknown> },
  source: DirectSource<object>,
  args: ExecutionArgs,
  ctx: GraphQLContext,
): SharedStream {
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const key = keyOf(args, ctx);
  let ended = false;
  let held: ExecutionResult | Promise<ExecutionResult> | null = null;
  const end = async (): Promise<IteratorReturnResult<undefined>> => {
    if (!ended) {
      ended = true;
      await Promise.all([original.return?.(), source.return?.()]);
    }
    return finished;
  };
  const takeNow = source.takeNow?.bind(source);
  const onReady = source.onReady?.bind(source);
  const ahead = source.upcoming ? () => source.upcoming!(AHEAD_MAX) : undefined;
  const direct: DirectResults | null =
    takeNow && onReady
      ? {
          take() {
            if (ended || held) return undefined;
            const event = takeNow();
            if (event == null) return event;
            const result = resultFor(event, args, key, ahead);
            if (result instanceof Promise || result.errors?.length) {
              held = result;
              return undefined;
            }
            return result;
          },
          onReady,
        }
      : null;
  const stream: SharedStream = {
    direct,
    async next() {
      if (ended) return finished;
      if (held) {
        const h = held;
        held = null;
        return { done: false, value: h instanceof Promise ? await h : h };
      }
      let r: IteratorResult<object>;
      try {
        r = await source.next();
      } catch (err) {
        // As graphql-tools reports an error of the event stream: located at the operation.
        const error = err instanceof Error ? err : new Error(String(err));
        const op = operationOf(args);
        throw new GraphQLError(error.message, { originalError: error, ...(op ? { nodes: [op] } : {}) });
      }
      if (r.done || ended) {
        await end();
        return finished;
      }
      // Awaited only when it is a promise: an await costs every subscriber a microtask turn.
      const result = resultFor(r.value, args, key, ahead);
      return { done: false, value: result instanceof Promise ? await result : result };
    },
    return: end,
    async throw(err?: unknown) {
      await end();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}

const isAsyncIterator = (v: unknown): v is AsyncIterator<unknown> =>
  typeof v === 'object' && v !== null && Symbol.asyncIterator in v;

/** Requests whose subscription shares results: their SSE is encoded by sse-body.ts. */
const sharedRequests = new WeakMap<Request, SharedStream>();
/** The Node stream behind each such response, for the HTTP layer to pipe to its response. */
const nodeBodies = new WeakMap<Response, Readable>();

/** The Node stream of a shared subscription's SSE response, if `response` is one. */
export function nodeBodyOf(response: Response): Readable | undefined {
  return nodeBodies.get(response);
}

/** The plugin: subscriptions whose source was registered with `shareResults` share results. */
export function useSharedResults(): Plugin {
  return {
    onSubscribe({ args }) {
      return {
        onSubscribeResult({ result, setResult }) {
          const ctx = args.contextValue as unknown as GraphQLContext & { request?: Request };
          const source = sources.get(ctx);
          if (!source || !isAsyncIterator(result)) return;
          sources.delete(ctx);
          const stream = sharedStream(result, source, args, ctx);
          setResult(stream);
          if (ctx.request) sharedRequests.set(ctx.request, stream);
        },
      };
    },
    // After Yoga's own choice: a subscription's stream has one processor, SSE, when accepted.
    onResultProcess({ request, result, resultProcessor, setResultProcessor }) {
      if (!resultProcessor || !sharedRequests.has(request) || !isAsyncIterator(result)) return;
      const direct = sharedRequests.get(request)?.direct ?? undefined;
      setResultProcessor((r, fetchAPI) => {
        const body = sseBody((r as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator](), direct);
        // The Response wraps the same stream for any other reader (e.g. yoga.fetch in tests).
        const response = new fetchAPI.Response(body as unknown as BodyInit, {
          status: 200,
          headers: SSE_HEADERS,
        });
        nodeBodies.set(response, body);
        return response;
      }, 'text/event-stream');
    },
  };
}

/** The headers of Yoga's SSE responses. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  Connection: 'keep-alive',
  'Cache-Control': 'no-cache',
  'Content-Encoding': 'none',
};
