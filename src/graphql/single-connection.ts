// The graphql-sse single-connection mode at /graphql/stream, bounded (docs/DECISIONS.md,
// "GraphQL surface"): reservations are capped per key and expire unopened (stream-tokens.ts),
// and an operation whose stream is too far behind its reader ends (stream-bounds.ts).
// Yoga's plugin parses and validates an operation inside the library's handler, where a
// thrown GraphQLError (a syntax error, a document over a limit) would surface as a 500; here
// it becomes the 400 BAD_USER_INPUT that /graphql gives.
import { useGraphQLSSE } from '@graphql-yoga/plugin-graphql-sse';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import type { Principal } from '../domain/principal.ts';
import { isGraphQLError } from './errors.ts';
import { boundedSource, countedBody } from './stream-bounds.ts';
import {
  createStreamTokens,
  DEFAULT_STREAM_LIMITS,
  type StreamLimits,
  TOKEN_HEADER,
} from './stream-tokens.ts';

export const GRAPHQL_STREAM_ENDPOINT = '/graphql/stream';

type OnRequest = NonNullable<Plugin['onRequest']>;
type FetchAPI = Parameters<OnRequest>[0]['fetchAPI'];

const isAsyncIterable = (v: unknown): v is AsyncIterator<unknown> & AsyncIterable<unknown> =>
  typeof v === 'object' && v !== null && Symbol.asyncIterator in v;

export function useSingleConnectionStream(
  principalOf: (request: Request) => Principal,
  limits: StreamLimits = DEFAULT_STREAM_LIMITS,
): Plugin {
  let fetchAPI: FetchAPI | null = null;
  let libraryOnRequest: OnRequest | null = null;

  /**
   * Removes a token from the library: graphql-sse forgets a stream only when its event
   * stream ends, so we open it and cancel it at once — the library's own dispose path, which
   * also ends the operations queued on it.
   */
  const drop = (token: string): void => {
    if (!fetchAPI || !libraryOnRequest) return;
    const request = new fetchAPI.Request(`http://internal${GRAPHQL_STREAM_ENDPOINT}`, {
      headers: { accept: 'text/event-stream', [TOKEN_HEADER]: token },
    });
    tokens.markInternal(request);
    const payload = {
      request,
      serverContext: {},
      fetchAPI,
      endResponse: (response: Response) => void response.body?.cancel().catch(() => {}),
    } as unknown as Parameters<OnRequest>[0];
    void Promise.resolve(libraryOnRequest(payload)).catch(() => {});
  };

  const tokens = createStreamTokens(principalOf, limits, drop);
  const sse = useGraphQLSSE({
    endpoint: GRAPHQL_STREAM_ENDPOINT,
    authenticate: tokens.authenticate,
    onNext(_ctx, req) {
      const state = tokens.stateOf(req.raw);
      if (state) state.produced++;
    },
  }) as Plugin;
  libraryOnRequest = sse.onRequest!;
  const onYogaInit = sse.onYogaInit!;

  return {
    ...sse,
    onYogaInit(payload) {
      fetchAPI = payload.yoga.fetchAPI;
      return onYogaInit(payload);
    },
    onSubscribe({ args }) {
      const request = (args.contextValue as Partial<YogaInitialContext>).request;
      const state = request && tokens.stateOf(request);
      if (!state) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (isAsyncIterable(result)) setResult(boundedSource(result, state, limits.maxBehind));
        },
      };
    },
    onRequest(payload) {
      const endResponse = (response: Response): void => {
        const state = tokens.stateOf(payload.request);
        const eventStream = response.headers.get('content-type')?.startsWith('text/event-stream');
        if (!state || !eventStream || !response.body) {
          payload.endResponse(response);
          return;
        }
        const close = (): void => tokens.closed(state);
        // Whichever comes first: the body ends or is cancelled, or the client goes away.
        payload.request.signal.addEventListener('abort', close, { once: true });
        const body = countedBody(response.body, state, close, payload.fetchAPI.ReadableStream);
        payload.endResponse(
          new payload.fetchAPI.Response(body, { status: response.status, headers: response.headers }),
        );
      };
      const handled = libraryOnRequest!({ ...payload, endResponse });
      if (!handled) return handled;
      return Promise.resolve(handled).catch((err: unknown) => {
        if (!isGraphQLError(err)) throw err;
        const body = { errors: [{ message: err.message, extensions: { code: 'BAD_USER_INPUT' } }] };
        payload.endResponse(
          new payload.fetchAPI.Response(JSON.stringify(body), {
            status: 400,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          }),
        );
      });
    },
  };
}
