// The sign-in doors (API.md §19): GET /auth/login sends the person to the identity provider,
// GET /auth/callback comes back with the code (both the `signin` door), POST /auth/logout ends
// the session, GET /auth/session tells the inbox whether sign-in is offered and who is signed in
// (both the `session` door). The doors are always open; the door hook resolves the caller as on
// every door, so these handlers read `req.principal` and `req.sessionId`, and a logout carrying
// the cookie from another origin is refused there (403) before it gets here. A login in
// flight is kept in the store under its state (ten minutes, taken once) and bound to the
// browser that started it by a short cookie holding the same state, so a callback URL planted
// in someone else's browser signs nobody in.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import { type OidcRoleRules, principalFromClaims } from '../../auth/oidc-principal.ts';
import {
  cookieValue,
  LOGIN_COOKIE,
  originAllowed,
  SESSION_COOKIE,
  setCookie,
} from '../../auth/session-cookie.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Logger } from '../../engine/logger.ts';
import { type People, sessionRef } from '../../engine/people/people.ts';
import type { Push } from '../../engine/people/push.ts';
import type { OidcClient } from '../oidc-client.ts';
import { rateLimitKey, redisRateLimitStore } from '../rate-limit-store.ts';
import { ownOriginsOf } from '../session-auth.ts';

export interface AuthRouteOptions {
  /** Null: OIDC is not configured; only /auth/session and /auth/logout are served. */
  client: OidcClient | null;
  rules: OidcRoleRules;
  people: People;
  sessionSeconds: number;
  /** The configured public base URL's origin; null when it is only the default. */
  publicOrigin: string | null;
  logger: Logger;
  clock?: () => number;
  /** Web Push: a sign-out ends the subscriptions made in the session (API.md §19). */
  push?: Pick<Push, 'endSession'>;
  /**
   * The public doors' rate limit, applied to /auth/login and /auth/callback: each login writes
   * to the store before anyone is signed in, so an address may start only so many a minute.
   */
  rateLimit?: { perMinute: number; redis: Redis | Cluster | null; prefix: string };
}

/** How long a person may take at the provider's pages. */
export const LOGIN_SECONDS = 600;

const PAGE_CSP =
  "default-src 'none'; style-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A plain page for a person whose sign-in did not work (never a JSON error in a browser tab). */
function failurePage(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply
    .status(status)
    .headers({ 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store' })
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head>` +
        `<body><main><h1>Sign-in failed</h1><p>${escapeHtml(message)}</p>` +
        `<p><a href="/auth/login">Try again</a> or <a href="/">go to the inbox</a>.</p></main></body></html>`,
    );
}

function single(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : null;
}

export async function authRoutes(app: FastifyInstance, o: AuthRouteOptions): Promise<void> {
  /** Our own origin as the browser sees it: the public one, else the request's Host. */
  const ownOrigin = (req: FastifyRequest): string =>
    o.publicOrigin ?? `${req.protocol}://${req.headers.host ?? ''}`;
  const secure = (req: FastifyRequest): boolean => ownOrigin(req).startsWith('https:');

  const session = { config: { door: 'session' } } as const;
  app.get('/auth/session', session, async (req, reply) => {
    // Signed in: the caller came by the session cookie (a key is not a sign-in).
    const p = req.sessionId !== null ? req.principal : null;
    reply.header('cache-control', 'no-store');
    return {
      signIn: o.client ? { label: o.client.label, url: '/auth/login' } : null,
      signedIn: p ? { id: p.id, name: p.name ?? p.id, roles: p.roles, restricted: p.restricted } : null,
    };
  });

  app.post('/auth/logout', session, async (req, reply) => {
    // The cookie's session, live or already expired: signing out is the person saying "no more
    // on this browser", so the pushes made in it end too (an expired session's would otherwise
    // last out their grace). An expired cookie is taken only from our own origin: the door let
    // it through as no credential, without the Origin check a live session gets.
    const ownOrigin = originAllowed(req.method, req.headers, ownOriginsOf(req.headers, o.publicOrigin));
    const id = req.sessionId ?? (ownOrigin ? cookieValue(req.headers, SESSION_COOKIE) : null);
    if (id !== null) {
      const ended = await o.people.session(id, (o.clock ?? Date.now)());
      await o.people.closeSession(id);
      // Closed first: a subscription being stored meanwhile looks again, finds the session
      // gone and removes itself (engine/people/push.ts), so none made in it outlives this sign-out.
      if (o.push) await o.push.endSession(ended?.principal.id ?? null, sessionRef(id));
    }
    return reply
      .header('set-cookie', setCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, secure: secure(req) }))
      .header('cache-control', 'no-store')
      .status(204)
      .send();
  });

  const client = o.client;
  // Their own scope: the rate limit applies to these two doors only.
  if (client) await app.register((scope) => loginRoutes(scope, o, client));
}

async function loginRoutes(app: FastifyInstance, o: AuthRouteOptions, client: OidcClient): Promise<void> {
  const clock = o.clock ?? Date.now;
  const ownOrigin = (req: FastifyRequest): string =>
    o.publicOrigin ?? `${req.protocol}://${req.headers.host ?? ''}`;
  const secure = (req: FastifyRequest): boolean => ownOrigin(req).startsWith('https:');
  const redirectUri = (req: FastifyRequest): string => `${ownOrigin(req)}/auth/callback`;
  if (o.rateLimit) {
    const { perMinute, redis, prefix } = o.rateLimit;
    await app.register(rateLimit, {
      max: perMinute,
      timeWindow: 60_000,
      ...(redis ? { store: redisRateLimitStore(redis, `${prefix}ratelimit:auth:`) } : {}),
      keyGenerator: (req) => rateLimitKey(req.ip),
      skipOnError: false,
      errorResponseBuilder: (_req, ctx) =>
        new DomainError('RATE_LIMITED', `too many sign-ins; retry in ${Math.ceil(ctx.ttl / 1000)} s`),
    });
  }

  const signin = { config: { door: 'signin' } } as const;
  app.get('/auth/login', signin, async (req, reply) => {
    const checks = client.newChecks();
    let url: URL;
    try {
      url = await client.authorizationUrl(redirectUri(req), checks);
    } catch (err) {
      o.logger.warn({ err }, 'OIDC: the identity provider could not be reached (discovery failed)');
      return failurePage(reply, 502, 'The identity provider could not be reached. Try again in a moment.');
    }
    await o.people.saveLogin(
      checks.state,
      { codeVerifier: checks.codeVerifier, nonce: checks.nonce },
      clock() + LOGIN_SECONDS * 1000,
    );
    return reply
      .header(
        'set-cookie',
        setCookie(LOGIN_COOKIE, checks.state, {
          maxAgeSeconds: LOGIN_SECONDS,
          secure: secure(req),
          path: '/auth',
        }),
      )
      .header('cache-control', 'no-store')
      .redirect(url.href, 302);
  });

  app.get('/auth/callback', signin, async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    reply.header(
      'set-cookie',
      setCookie(LOGIN_COOKIE, '', { maxAgeSeconds: 0, secure: secure(req), path: '/auth' }),
    );
    if (single(query.error) !== null) {
      return failurePage(reply, 400, 'The identity provider did not sign you in.');
    }
    const state = single(query.state);
    // The state must be the one this browser started with, and is honoured once.
    if (state === null || cookieValue(req.headers, LOGIN_COOKIE) !== state) {
      return failurePage(reply, 400, 'This sign-in was not started in this browser, or it was already used.');
    }
    const login = await o.people.takeLogin(state, clock());
    if (login === null) return failurePage(reply, 400, 'This sign-in has expired or was already used.');
    let claims: Record<string, unknown>;
    try {
      claims = await client.redeem(new URL(req.url, ownOrigin(req)), { state, ...login });
    } catch (err) {
      // The library's message says which check failed; it holds no secret (never the code or a token).
      o.logger.warn({ reason: (err as Error).message }, 'OIDC: a sign-in failed its checks');
      return failurePage(reply, 400, 'The sign-in could not be verified. Start again.');
    }
    const principal = principalFromClaims(claims, o.rules);
    if (principal === null) return failurePage(reply, 400, 'The identity provider gave no subject for you.');
    const sessionId = await o.people.openSession(principal, clock() + o.sessionSeconds * 1000);
    o.logger.info(
      { principal: principal.id, roles: principal.roles, restricted: principal.restricted },
      'OIDC: signed in',
    );
    return reply
      .header('set-cookie', [
        setCookie(LOGIN_COOKIE, '', { maxAgeSeconds: 0, secure: secure(req), path: '/auth' }),
        setCookie(SESSION_COOKIE, sessionId, { maxAgeSeconds: o.sessionSeconds, secure: secure(req) }),
      ])
      .header('cache-control', 'no-store')
      .redirect('/', 303);
  });
}
