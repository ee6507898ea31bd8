// Who calls /graphql and /graphql/stream. Every request that reaches Yoga past its GraphiQL page
// (and CORS preflights) must carry a key the door policy accepts; otherwise it ends here with
// 401 UNAUTHENTICATED, whatever the method (GET, POST, the graphql-sse PUT reservation, ...).

import type { Plugin } from 'graphql-yoga';
import { type Authenticator, UNAUTHENTICATED_MESSAGE } from '../auth/authenticate.ts';
import type { HeaderBag } from '../auth/credentials.ts';
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
  const known = new WeakMap<Request, Principal>();

  function authenticate(request: Request): Principal | null {
    const result = authenticator.authenticate('graphql', headerBag(request.headers));
    return result.ok ? result.principal : null;
  }

  /** A keyless request carrying a cookie may be a signed-in person (API.md §19). */
  async function bySession(request: Request): Promise<Principal | 'forbidden' | null> {
    if (!sessions || request.headers.has('authorization') || request.headers.has('x-api-key')) return null;
    if (!request.headers.has('cookie')) return null;
    const result = await sessions({ method: request.method, headers: headerBag(request.headers) });
    if (result === null) return null;
    if (result.ok) return result.principal;
    return result.code === 'FORBIDDEN' ? 'forbidden' : null;
  }

  return {
    plugin: {
      async onRequest({ request, fetchAPI, endResponse }) {
        const session = await bySession(request);
        if (session === 'forbidden') {
          endResponse(
            new fetchAPI.Response(FORBIDDEN_BODY, {
              status: 403,
              headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
            }),
          );
          return;
        }
        const principal = session ?? authenticate(request);
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
