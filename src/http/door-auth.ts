// Authentication as a route option: every route says which door it is (`config: { door }`), and
// one onRequest hook resolves the caller at that door (src/auth/resolve-principal.ts, the rule
// GraphQL's plugin calls too) before anything else of the route runs. Route handlers read
// `req.principal` (and `req.sessionId`) and never check a key or a cookie themselves; a caller
// the door refuses gets the domain error that the one error handler maps to 401 or 403.
// A route that declares no door is refused when it is registered, so a forgotten door on a new
// route is a start-up failure, never an open route.
import type { FastifyInstance } from 'fastify';
import { type Authenticator, UNAUTHENTICATED_MESSAGE } from '../auth/authenticate.ts';
import { DOORS, OPEN_DOORS, type PrincipalDoor } from '../auth/door-policy.ts';
import { createPrincipalResolver, type Resolution } from '../auth/resolve-principal.ts';
import { FOREIGN_ORIGIN_MESSAGE, type SessionAuth } from '../auth/session-cookie.ts';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';

/**
 * The door of a route whose own protocol authenticates it: /graphql and /graphql/stream, where
 * Yoga's plugin (src/graphql/auth.ts) resolves the caller at the `graphql` door with the same
 * rule, past the GraphiQL page, and answers refusals in GraphQL's shape.
 */
export const YOGA_DOOR = 'yoga';

/** What a route declares as `config.door`. */
export type RouteDoor = PrincipalDoor | typeof YOGA_DOOR;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The door this route is (API.md §6); required of every route (see useDoorAuth). */
    door?: RouteDoor;
  }
  interface FastifyRequest {
    /** Who is calling, set by the door hook on every route but the Yoga ones. */
    principal: Principal;
    /** The sign-in session the principal came from (API.md §19); null for a key or nobody. */
    sessionId: string | null;
  }
}

/** Every value a route may declare, checked at registration. */
const ROUTE_DOORS: ReadonlySet<string> = new Set([...DOORS, ...OPEN_DOORS, YOGA_DOOR]);

/** Where a scope keeps the door of the routes registered in it that declare none themselves. */
const SCOPE_DOOR = Symbol('scopeDoor');

/**
 * Declares `door` for every route registered in `scope` from now on, a plugin's included (the
 * inbox's @fastify/static files, which take no route config). Call it on a plugin's own
 * instance: the declaration does not leak to its parent.
 */
export function declareScopeDoor(scope: FastifyInstance, door: RouteDoor): void {
  (scope as unknown as Record<symbol, RouteDoor>)[SCOPE_DOOR] = door;
}

function scopeDoorOf(scope: FastifyInstance): RouteDoor | undefined {
  return (scope as unknown as Record<symbol, RouteDoor | undefined>)[SCOPE_DOOR];
}

/** The start-up failure of a route without a door (or with one that does not exist). */
export class DoorDeclarationError extends Error {
  constructor(method: string | string[], url: string, unknown?: string) {
    const methods = Array.isArray(method) ? method.join(',') : method;
    const what =
      unknown === undefined ? 'declares no door' : `declares an unknown door ${JSON.stringify(unknown)}`;
    super(
      `route ${methods} ${url} ${what}: give it config.door (a door of the policy, ` +
        `'signin', 'session', 'public', or '${YOGA_DOOR}' for a route Yoga authenticates)`,
    );
    this.name = 'DoorDeclarationError';
  }
}

function refusal(result: Exclude<Resolution, { ok: true }>): DomainError {
  return result.code === 'FORBIDDEN'
    ? new DomainError('FORBIDDEN', FOREIGN_ORIGIN_MESSAGE)
    : new DomainError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
}

/**
 * Installs the door check and the door hook on `app` (call it on the root instance, before
 * registering routes, so every route plugin inherits both).
 */
export function useDoorAuth(app: FastifyInstance, auth: Authenticator, sessions?: SessionAuth): void {
  const resolve = createPrincipalResolver(auth, sessions);
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('sessionId', null);
  // Resolved once, at registration (as @fastify/rate-limit reads its route option): `this` is
  // the scope the route is registered in.
  app.addHook('onRoute', function checkDoor(route) {
    const declared = route.config?.door;
    if (declared !== undefined) {
      if (!ROUTE_DOORS.has(declared)) throw new DoorDeclarationError(route.method, route.url, declared);
      return;
    }
    const door = scopeDoorOf(this);
    if (door === undefined) throw new DoorDeclarationError(route.method, route.url);
    route.config = { ...route.config, door };
  });
  app.addHook('onRequest', (req, _reply, done) => {
    const door = req.routeOptions.config.door;
    if (door === YOGA_DOOR) return done();
    // No route at all (the 404) has nothing to protect; a route without a door cannot be
    // registered, and one that slipped past the check anyway is closed, not open.
    if (door === undefined)
      return done(req.is404 ? undefined : refusal({ ok: false, code: 'UNAUTHENTICATED' }));
    const result = resolve(door, req);
    if (!(result instanceof Promise)) return finish(result);
    result.then(finish, done);

    function finish(r: Resolution): void {
      if (!r.ok) {
        done(refusal(r));
        return;
      }
      req.principal = r.principal;
      req.sessionId = r.sessionId;
      done();
    }
  });
}
