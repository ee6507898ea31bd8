// Authentication as a route option: a route says which door it is (`config: { door }`), and
// one onRequest hook applies the door policy (API.md §6) before anything else of the route
// runs. Route handlers read `req.principal` and never check a key themselves; a caller the
// door refuses gets the domain error that the one error handler maps to 401.
import type { FastifyInstance } from 'fastify';
import { type Authenticator, UNAUTHENTICATED_MESSAGE } from '../auth/authenticate.ts';
import type { Door } from '../auth/door-policy.ts';
import { FOREIGN_ORIGIN_MESSAGE, type SessionAuth } from '../auth/session-cookie.ts';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The door this route is (API.md §6); routes without one (GraphQL) authenticate by protocol. */
    door?: Door;
  }
  interface FastifyRequest {
    /** Who is calling, set by the door hook on every route that declares a door. */
    principal: Principal;
  }
}

/**
 * Installs the door hook on `app` (call it on the root instance, before registering routes,
 * so every route plugin inherits it).
 */
export function useDoorAuth(app: FastifyInstance, auth: Authenticator, sessions?: SessionAuth): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', (req, _reply, done) => {
    const door = req.routeOptions.config.door;
    if (door === undefined) return done();
    // Node lowercases header names, so a request with neither credential header presents no
    // key: the common case of the public doors, decided without reading the headers through.
    const h = req.headers;
    const keyless = h.authorization === undefined && h['x-api-key'] === undefined;
    // A key wins over a cookie; a keyless request with a cookie may be a signed-in person (§19).
    if (keyless && sessions && h.cookie !== undefined) {
      sessions({ method: req.method, headers: h }).then((session) => {
        if (session === null) return finish(auth.keyless(door));
        if (!session.ok && session.code === 'FORBIDDEN') {
          return done(new DomainError('FORBIDDEN', FOREIGN_ORIGIN_MESSAGE));
        }
        finish(session.ok ? session : auth.keyless(door));
      }, done);
      return;
    }
    finish(keyless ? auth.keyless(door) : auth.authenticate(door, h));

    function finish(result: ReturnType<Authenticator['keyless']>): void {
      if (!result.ok) {
        done(new DomainError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE));
        return;
      }
      req.principal = result.principal;
      done();
    }
  });
}
