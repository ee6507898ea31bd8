// Bot Framework authentication, both ways, with jose:
// - incoming: the `Authorization: Bearer <JWT>` of every activity is checked against the keys of
//   the OpenID metadata (RS256 only, issuer from the metadata, audience = the app id, not expired
//   with five minutes' leeway), the key must endorse the activity's channel, and the token's
//   `serviceurl` claim must equal the activity's serviceUrl (checked by the caller, who parses the
//   body). The Bot Framework signs no body: the token is what is verified.
// - outgoing: an OAuth client-credentials token for the connector, cached until shortly before it
//   expires.
// Metadata and keys are read through the channel's `fetch` (bounded), cached for a day, and read
// again at most every five minutes when a token names a key we do not have (Microsoft rotates them).
import { createLocalJWKSet, decodeProtectedHeader, errors, type JSONWebKeySet, jwtVerify } from 'jose';
import { cappedJson } from '../response-body.ts';
import type { ChannelContext } from '../types.ts';

export const BOT_FRAMEWORK_OPENID = 'https://login.botframework.com/v1/.well-known/openidconfiguration';
export const BOT_FRAMEWORK_SCOPE = 'https://api.botframework.com/.default';
/** The multi-tenant token endpoint; a single-tenant bot uses its tenant's. */
export function defaultTokenUrl(tenantId?: string): string {
  return `https://login.microsoftonline.com/${tenantId ?? 'botframework.com'}/oauth2/v2.0/token`;
}

const KEYS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const KEYS_COOLDOWN_MS = 5 * 60 * 1000;
/** After a failed read, requests fail closed without trying again for this long. */
const KEYS_RETRY_AFTER_FAILURE_MS = 30 * 1000;
const CLOCK_TOLERANCE_S = 300;
/** How long one call to Microsoft may take. */
export const TEAMS_TIMEOUT_MS = 10_000;
/** Longest bearer token we look at; Bot Framework tokens are 1–2 KiB. */
const TOKEN_MAX_CHARS = 8192;

type KeySet = {
  issuer: string;
  verify: ReturnType<typeof createLocalJWKSet>;
  jwks: JSONWebKeySet;
  at: number;
};

export type TokenCheck =
  | { ok: true; serviceUrl: string | null }
  | { ok: false; status: 401 | 500; reason: string };

async function getJson(ctx: ChannelContext, url: string): Promise<Record<string, unknown> | null> {
  const res = await ctx.fetch(url, { redirect: 'error', signal: AbortSignal.timeout(TEAMS_TIMEOUT_MS) });
  const json = res.ok ? await cappedJson(res) : null;
  return typeof json === 'object' && json !== null && !Array.isArray(json)
    ? (json as Record<string, unknown>)
    : null;
}

export function createIncomingAuth(ctx: ChannelContext, metadataUrl: string) {
  let keys: KeySet | null = null;
  let loading: Promise<KeySet> | null = null;
  let failedAt = Number.NEGATIVE_INFINITY;

  async function load(): Promise<KeySet> {
    const meta = await getJson(ctx, metadataUrl);
    const issuer = meta?.issuer;
    const jwksUri = meta?.jwks_uri;
    if (typeof issuer !== 'string' || typeof jwksUri !== 'string') throw new Error('no OpenID metadata');
    const jwks = (await getJson(ctx, jwksUri)) as JSONWebKeySet | null;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error('no key set');
    return { issuer, jwks, verify: createLocalJWKSet(jwks), at: Date.now() };
  }

  /** The cached keys, read again when older than a day (or `fresh`, at most every five minutes). */
  async function keySet(fresh: boolean): Promise<KeySet> {
    const age = keys ? Date.now() - keys.at : Number.POSITIVE_INFINITY;
    if (keys && age < KEYS_MAX_AGE_MS && !(fresh && age > KEYS_COOLDOWN_MS)) return keys;
    // Forged requests must not turn an outage at Microsoft into one outgoing call each.
    if (Date.now() - failedAt < KEYS_RETRY_AFTER_FAILURE_MS) {
      if (keys) return keys;
      throw new Error('the OpenID metadata could not be read recently');
    }
    loading ??= load().finally(() => {
      loading = null;
    });
    try {
      keys = await loading;
    } catch (err) {
      failedAt = Date.now();
      // Stale keys still verify what they verified; with none at all we fail closed.
      if (!keys) throw err;
    }
    return keys;
  }

  /** Checks the bearer token for an activity of `channelId`; `serviceurl` is returned for the caller to compare. */
  return async function checkToken(
    authorization: string | string[] | undefined,
    appId: string,
    channelId: () => string | null,
  ): Promise<TokenCheck> {
    if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) {
      return { ok: false, status: 401, reason: 'no bearer token' };
    }
    const token = authorization.slice(7);
    if (token.length > TOKEN_MAX_CHARS) return { ok: false, status: 401, reason: 'token too long' };
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== 'RS256') return { ok: false, status: 401, reason: 'not RS256' };
      kid = header.kid;
    } catch {
      return { ok: false, status: 401, reason: 'not a JWT' };
    }
    let set: KeySet;
    try {
      set = await keySet(false);
      if (kid !== undefined && !set.jwks.keys.some((k) => k.kid === kid)) set = await keySet(true);
    } catch {
      return { ok: false, status: 500, reason: 'the OpenID metadata or its keys cannot be read' };
    }
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, set.verify, {
        issuer: set.issuer,
        audience: appId,
        algorithms: ['RS256'],
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      const why = err instanceof errors.JOSEError ? err.code : 'invalid';
      return { ok: false, status: 401, reason: `token ${why}` };
    }
    // A key endorsed for some channels only signs activities from those channels.
    const jwk = set.jwks.keys.find((k) => k.kid === kid) as { endorsements?: unknown } | undefined;
    const channel = channelId();
    // (An unreadable activity is refused by the caller, 400.)
    if (Array.isArray(jwk?.endorsements) && channel !== null && !jwk.endorsements.includes(channel)) {
      return { ok: false, status: 401, reason: 'key not endorsed for the channel' };
    }
    const serviceUrl = payload.serviceurl ?? payload.serviceUrl;
    return { ok: true, serviceUrl: typeof serviceUrl === 'string' ? serviceUrl : null };
  };
}

/** The connector's access token for outgoing calls, cached. */
export function createOutgoingAuth(
  ctx: ChannelContext,
  cfg: { appIdEnv: string; appPasswordEnv: string; tokenUrl: string },
) {
  let cached: { token: string; until: number } | null = null;
  return async function accessToken(): Promise<string> {
    if (cached && cached.until > Date.now()) return cached.token;
    const appId = ctx.secret(cfg.appIdEnv);
    const password = ctx.secret(cfg.appPasswordEnv);
    if (!appId || !password)
      throw new Error(`the Teams app id or password (${cfg.appIdEnv}, ${cfg.appPasswordEnv}) is not set`);
    const res = await ctx.fetch(cfg.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: appId,
        client_secret: password,
        scope: BOT_FRAMEWORK_SCOPE,
      }).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(TEAMS_TIMEOUT_MS),
    });
    const json = (await cappedJson(res)) as { access_token?: unknown; expires_in?: unknown } | null;
    if (!res.ok || typeof json?.access_token !== 'string') {
      throw new Error(`teams token request failed: HTTP ${res.status}`);
    }
    const lifetime = typeof json.expires_in === 'number' ? json.expires_in : 3600;
    // Renewed five minutes early, so a token never expires on the way.
    cached = { token: json.access_token, until: Date.now() + Math.max(lifetime - 300, 30) * 1000 };
    return cached.token;
  };
}
