// OpenID Connect sign-in for people (API.md §19). Unset INTERACTIONS_OIDC_ISSUER: no sign-in
// doors, the inbox takes keys only. Set: the client id and the variable holding the client secret
// are required too; the secret is read here, once, and never echoed.
import { z } from 'zod';
import { ROLES, type Role } from '../../domain/principal.ts';
import { isPlainObject } from '../../domain/values.ts';
import { ConfigError, settingsArea, shown, urlSetting, wholeNumber } from './fields.ts';

export interface OidcClientSettings {
  /** The issuer, discovered at start from `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The ID token claim holding the person's roles (a string or an array of strings). */
  readonly rolesClaim: string;
  /** Claim value → role; a person none of whose values is mapped is a restricted operator. */
  readonly roleMap: Readonly<Record<string, Role>>;
}

export interface OidcSettings {
  /** Null: OIDC sign-in is off. */
  readonly oidc: OidcClientSettings | null;
  /** How long a sign-in session lasts (API.md §19: 12 h by default). */
  readonly sessionSeconds: number;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

// https:// only, except a loopback host for tests and local set-ups (API.md §19).
const issuerSchema = urlSetting('an https:// issuer URL such as https://login.example.com', (url, raw) => {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the scheme must be https';
  if (url.protocol === 'http:' && !LOOPBACK.includes(url.hostname)) {
    return 'http:// is allowed only for localhost, 127.0.0.1 and [::1]';
  }
  if (url.username !== '' || url.password !== '' || raw.includes('@')) return 'no user@ part allowed';
  if (url.search !== '' || raw.includes('?') || raw.includes('#')) return 'no query or fragment allowed';
  return { keep: raw };
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const CLAIM_NAME = /^[A-Za-z0-9_:./-]{1,128}$/;

const optionalNonEmpty = z
  .string()
  .optional()
  .transform((raw) => raw || null);

/** Parses INTERACTIONS_OIDC_ROLE_MAP: a JSON object of claim value → one of the roles. */
export function parseRoleMap(text: string): Readonly<Record<string, Role>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('expected a JSON object such as {"inbox-admins": "admin"} (not valid JSON)');
  }
  if (!isPlainObject(value)) throw new Error('expected a JSON object of claim value → role');
  const map: Record<string, Role> = Object.create(null);
  for (const [claim, role] of Object.entries(value)) {
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
      throw new Error(
        `${shown(claim)} maps to ${typeof role === 'string' ? shown(role) : typeof role}; expected one of ${ROLES.join(', ')}`,
      );
    }
    map[claim] = role as Role;
  }
  return Object.freeze(map);
}

export const oidcSettings = settingsArea({
  env: {
    INTERACTIONS_OIDC_ISSUER: issuerSchema,
    INTERACTIONS_OIDC_CLIENT_ID: optionalNonEmpty,
    INTERACTIONS_OIDC_CLIENT_SECRET_ENV: optionalNonEmpty,
    INTERACTIONS_OIDC_ROLES_CLAIM: optionalNonEmpty,
    INTERACTIONS_OIDC_ROLE_MAP: optionalNonEmpty,
    // At least a minute, at most 30 days.
    INTERACTIONS_SESSION_SECONDS: wholeNumber(12 * 3600, 60, 30 * 24 * 3600),
  },
  read: (e, io): OidcSettings => {
    const sessionSeconds = e.INTERACTIONS_SESSION_SECONDS;
    const issuer = e.INTERACTIONS_OIDC_ISSUER;
    if (issuer === null) {
      for (const name of [
        'INTERACTIONS_OIDC_CLIENT_ID',
        'INTERACTIONS_OIDC_CLIENT_SECRET_ENV',
        'INTERACTIONS_OIDC_ROLES_CLAIM',
        'INTERACTIONS_OIDC_ROLE_MAP',
      ] as const) {
        if (e[name] !== null) throw new ConfigError(name, 'is set but INTERACTIONS_OIDC_ISSUER is not');
      }
      return { oidc: null, sessionSeconds };
    }
    const clientId = e.INTERACTIONS_OIDC_CLIENT_ID;
    if (clientId === null) {
      throw new ConfigError('INTERACTIONS_OIDC_CLIENT_ID', 'required when INTERACTIONS_OIDC_ISSUER is set');
    }
    const secretEnv = e.INTERACTIONS_OIDC_CLIENT_SECRET_ENV;
    const SECRET_VAR = 'INTERACTIONS_OIDC_CLIENT_SECRET_ENV';
    if (secretEnv === null)
      throw new ConfigError(SECRET_VAR, 'required when INTERACTIONS_OIDC_ISSUER is set');
    if (!ENV_NAME.test(secretEnv))
      throw new ConfigError(SECRET_VAR, `expected a variable name, got ${shown(secretEnv)}`);
    if (io.ownSettings.has(secretEnv)) {
      throw new ConfigError(
        SECRET_VAR,
        `names ${secretEnv}, a setting of its own; name the variable holding the secret`,
      );
    }
    const clientSecret = io.env[secretEnv];
    if (clientSecret === undefined || clientSecret === '') {
      throw new ConfigError(SECRET_VAR, `the variable ${secretEnv} it names is unset or empty`);
    }
    const rolesClaim = e.INTERACTIONS_OIDC_ROLES_CLAIM ?? 'roles';
    if (!CLAIM_NAME.test(rolesClaim)) {
      throw new ConfigError(
        'INTERACTIONS_OIDC_ROLES_CLAIM',
        `expected a claim name, got ${shown(rolesClaim)}`,
      );
    }
    let roleMap: Readonly<Record<string, Role>> = Object.freeze({});
    if (e.INTERACTIONS_OIDC_ROLE_MAP !== null) {
      try {
        roleMap = parseRoleMap(e.INTERACTIONS_OIDC_ROLE_MAP);
      } catch (err) {
        throw new ConfigError('INTERACTIONS_OIDC_ROLE_MAP', (err as Error).message);
      }
    }
    return { oidc: Object.freeze({ issuer, clientId, clientSecret, rolesClaim, roleMap }), sessionSeconds };
  },
});
