// Who calls /graphql and /graphql/stream. Every request that reaches Yoga past its GraphiQL page
// (and CORS preflights) is resolved at the graphql door by the rule every door uses
// (src/auth/resolve-principal.ts): without a credential the door policy accepts it ends here
// with 401 UNAUTHENTICATED, whatever the method (GET, POST, the graphql-sse PUT reservation,
// ...), and a cookie request that changes state from another origin with 403 FORBIDDEN.

import type { Plugin } from 'graphql-yoga';
import { type Authenticator, UNAUTHENTICATED_MESSAGE } from '../auth/authenticate.ts';
import type { HeaderBag } from '../auth/credentials.ts';
import { createPrincipalResolver } from '../auth/resolve-principal.ts';
import { FOREIGN_ORIGIN_MESSAGE, type SessionAuth } from '../auth/session-cookie.ts';
import type { Principal } from '../domain/principal.ts';
import { GraphQLError } from './graphql-js.ts';

const UNAUTHENTICATED_BODY = JSON.stringify({
  errors: [{ message: UNAUTHENTICATED_MESSAGE, extensions: { code: 'UNAUTHENTICATED' } }],
});

function headerBag(headers: Headers): HeaderBag {
  const bag: HeaderBag = {};
  headers.forEach((value, name) => {
    bag[name] = value;
  });
  return bag;
}

export interface RequestAuth {
  /** The Yoga plugin that refuses unauthenticated requests before anything else runs. */
  plugin: Plugin;
  /** The principal of a request the plugin let through (authenticating again if it must). */
  principalOf(request: Request): Principal;
}

const FORBIDDEN_BODY = JSON.stringify({
  errors: [{ message: FOREIGN_ORIGIN_MESSAGE, extensions: { code: 'FORBIDDEN' } }],
});

export function createRequestAuth(authenticator: Authenticator, sessions?: SessionAuth): RequestAuth {
  // The same rule as the REST doors' hook (src/http/door-auth.ts), at the graphql door.
  const resolve = createPrincipalResolver(authenticator, sessions);
  const known = new WeakMap<Request, Principal>();

  const refuse = (Res: typeof Response, code: 'UNAUTHENTICATED' | 'FORBIDDEN'): Response =>
    code === 'FORBIDDEN'
      ? new Res(FORBIDDEN_BODY, {
          status: 403,
          headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
        })
      : new Res(UNAUTHENTICATED_BODY, {
          status: 401,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'www-authenticate': 'Bearer',
            'cache-control': 'no-store',
          },
        });

  return {
    plugin: {
      async onRequest({ request, fetchAPI, endResponse }) {
        const result = await resolve('graphql', {
          method: request.method,
          headers: headerBag(request.headers),
        });
        if (result.ok) {
          known.set(request, result.principal);
          return;
        }
        endResponse(refuse(fetchAPI.Response, result.code));
      },
    },
    principalOf(request: Request): Principal {
      let principal = known.get(request);
      if (!principal) {
        // A request the plugin did not see: only a key can be resolved without waiting.
        const result = resolve('graphql', { method: request.method, headers: headerBag(request.headers) });
        if (!(result instanceof Promise) && result.ok) principal = result.principal;
      }
      if (!principal) {
        throw new GraphQLError(UNAUTHENTICATED_MESSAGE, {
          extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
        });
      }
      return principal;
    },
  };
}
