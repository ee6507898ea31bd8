// Who calls /graphql and /graphql/stream. Every request that reaches Yoga past its GraphiQL page
// (and CORS preflights) must carry a key the door policy accepts; otherwise it ends here with
// 401 UNAUTHENTICATED, whatever the method (GET, POST, the graphql-sse PUT reservation, ...).

import type { Plugin } from 'graphql-yoga';
import { type Authenticator, UNAUTHENTICATED_MESSAGE } from '../auth/authenticate.ts';
import type { HeaderBag } from '../auth/credentials.ts';
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

export function createRequestAuth(authenticator: Authenticator): RequestAuth {
  const known = new WeakMap<Request, Principal>();

  function authenticate(request: Request): Principal | null {
    const result = authenticator.authenticate('graphql', headerBag(request.headers));
    return result.ok ? result.principal : null;
  }

  return {
    plugin: {
      onRequest({ request, fetchAPI, endResponse }) {
        const principal = authenticate(request);
        if (principal) {
          known.set(request, principal);
          return;
        }
        endResponse(
          new fetchAPI.Response(UNAUTHENTICATED_BODY, {
            status: 401,
            headers: {
              'content-type': 'application/json; charset=utf-8',
              'www-authenticate': 'Bearer',
              'cache-control': 'no-store',
            },
          }),
        );
      },
    },
    principalOf(request: Request): Principal {
      const principal = known.get(request) ?? authenticate(request);
      if (!principal) {
        throw new GraphQLError(UNAUTHENTICATED_MESSAGE, {
          extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
        });
      }
      return principal;
    },
  };
}
