// The opt-in graphql-sse single-connection mode at /graphql/stream (docs/DECISIONS.md says why
// it is off by default). Yoga's plugin parses and validates an operation inside the library's
// handler, where a thrown GraphQLError (a syntax error, a document over a limit) would
// surface as a 500; here it becomes the 400 BAD_USER_INPUT that /graphql gives.
import { useGraphQLSSE } from '@graphql-yoga/plugin-graphql-sse';
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../domain/principal.ts';
import { isGraphQLError } from './errors.ts';
import { createStreamTokens } from './stream-tokens.ts';

export const GRAPHQL_STREAM_ENDPOINT = '/graphql/stream';

export function useSingleConnectionStream(principalOf: (request: Request) => Principal): Plugin {
  const sse = useGraphQLSSE({
    endpoint: GRAPHQL_STREAM_ENDPOINT,
    authenticate: createStreamTokens(principalOf).authenticate,
  }) as Plugin;
  const onRequest = sse.onRequest!;
  return {
    ...sse,
    onRequest(payload) {
      const handled = onRequest(payload);
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
