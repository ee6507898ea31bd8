// The listener and what it serves: address, public origin, log level, browsers allowed across
// sites, proxies believed, the optional GraphiQL, stream and metrics endpoints (API.md §1, §14).
import { z } from 'zod';
import {
  ConfigError,
  flag,
  optionalFlag,
  optionalPort,
  quoting,
  settingsArea,
  shown,
  urlSetting,
  wholeNumber,
} from './fields.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerSettings {
  readonly port: number;
  readonly host: string;
  /**
   * An origin without trailing slash, e.g. `https://x.example`; null: callback URLs cannot be
   * minted. Unset on a loopback HOST, the server's own `http://127.0.0.1:<PORT>`.
   */
  readonly publicBaseUrl: string | null;
  /** True when publicBaseUrl is that loopback default, which only this machine can reach. */
  readonly publicBaseUrlDefaulted: boolean;
  readonly logLevel: LogLevel;
  /** Browser origins allowed to call /graphql cross-site (`['*']` for any); empty: none. */
  readonly corsOrigins: readonly string[];
  /**
   * Reverse proxies in front of the server whose X-Forwarded-For is believed (0: none), so
   * the public doors' rate limit counts each client, not the proxy.
   */
  readonly trustProxyHops: number;
  /**
   * Serve GraphiQL on GET /graphql to browsers, from this origin (INTERACTIONS_GRAPHIQL; unset:
   * on when HOST is a loopback address, off otherwise).
   */
  readonly graphiql: boolean;
  /** Serve the graphql-sse single-connection mode at /graphql/stream (on by default; bounded). */
  readonly graphqlStream: boolean;
  /** Serve GET /metrics on a listener of its own (no key; bind HOST to an internal interface); null: none. */
  readonly metricsPort: number | null;
  /** INTERACTIONS_ALLOWED_HOSTS: more names the Host check accepts (lowercase); listed, every door is checked. */
  readonly allowedHosts: readonly string[];
}

const hostSchema = z
  .string()
  .regex(/^\S{1,253}$/, { error: quoting('a host name or IP address') })
  .default('127.0.0.1');

const logLevelSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(LOG_LEVELS, { error: quoting(`one of ${LOG_LEVELS.join(', ')}`) }))
  .default('info');

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** Bound to this machine only: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

// The value is not echoed either: it could carry userinfo, which is refused but might be a secret.
const publicBaseUrlSchema = urlSetting('an https:// origin such as https://x.example', (url, raw) => {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the scheme must be https';
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.includes(url.hostname)) {
    return 'http:// is allowed only for localhost, 127.0.0.1 and [::1]';
  }
  if (url.username !== '' || url.password !== '' || raw.includes('@')) return 'no user@ part allowed';
  // `?` and `#` are checked on the raw text too: the parser drops an empty query or fragment.
  if (url.search !== '' || raw.includes('?')) return 'no query allowed';
  if (url.hash !== '' || raw.includes('#')) return 'no fragment allowed';
  if (url.pathname !== '/') return 'no path allowed';
  // `origin` is the normalized form: lowercase host, default port dropped, no trailing slash.
  return { keep: url.origin };
});

/**
 * The quick-start default of INTERACTIONS_PUBLIC_BASE_URL: a server bound to loopback mints
 * callback URLs on its own address (only this machine can open them); any other HOST gets none,
 * so an exposed server never hands out http:// links by accident.
 */
export function loopbackBaseUrl(host: string, port: number): string | null {
  if (host === '127.0.0.1' || host === 'localhost') return `http://127.0.0.1:${port}`;
  if (host === '::1' || host === '[::1]') return `http://[::1]:${port}`;
  return null;
}

const ORIGINS_EXPECTED = 'expected * or a comma list of origins such as https://app.example';
/** An origin exactly as the browser sends it: http(s), no path, no trailing slash. */
const origin = z.string().refine((item) => {
  const url = URL.parse(item);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === item;
}, ORIGINS_EXPECTED);

/**
 * Browser origins allowed to call /graphql from another site: a comma list of origins, or
 * `*`. Unset or blank: none (the inbox is served from the same origin and needs no CORS).
 */
const corsOriginsSchema = z
  .string()
  .transform((raw) => (raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim())))
  .pipe(z.union([z.tuple([z.literal('*')]), z.array(origin)], { error: ORIGINS_EXPECTED }))
  .default([]);

const ALLOWED_HOSTS_EXPECTED = 'a comma list of host names such as tai.example.com (no scheme, port or path)';
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The names the Host check (src/http/host-check.ts) accepts besides localhost, IP addresses and
 * the public base URL's host. Blank: none.
 */
const allowedHostsSchema = z
  .string()
  .transform((raw, ctx) => {
    const items = raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim().toLowerCase());
    const bad = items.find((item) => !HOST_NAME.test(item));
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `expected ${ALLOWED_HOSTS_EXPECTED}, got ${shown(bad)}` });
      return z.NEVER;
    }
    return [...new Set(items)];
  })
  .default([]);

export const serverSettings = settingsArea({
  env: {
    PORT: wholeNumber(4000, 1, 65535),
    HOST: hostSchema,
    INTERACTIONS_PUBLIC_BASE_URL: publicBaseUrlSchema,
    LOG_LEVEL: logLevelSchema,
    INTERACTIONS_CORS_ORIGINS: corsOriginsSchema,
    INTERACTIONS_TRUST_PROXY_HOPS: wholeNumber(0, 0, 10),
    // Unset: decided by HOST (on for loopback).
    INTERACTIONS_GRAPHIQL: optionalFlag(),
    INTERACTIONS_GRAPHQL_STREAM: flag(true),
    INTERACTIONS_METRICS_PORT: optionalPort,
    INTERACTIONS_ALLOWED_HOSTS: allowedHostsSchema,
  },
  read(e): ServerSettings {
    if (e.INTERACTIONS_METRICS_PORT === e.PORT) {
      throw new ConfigError('INTERACTIONS_METRICS_PORT', 'must differ from PORT');
    }
    return {
      port: e.PORT,
      host: e.HOST,
      publicBaseUrl: e.INTERACTIONS_PUBLIC_BASE_URL ?? loopbackBaseUrl(e.HOST, e.PORT),
      publicBaseUrlDefaulted:
        e.INTERACTIONS_PUBLIC_BASE_URL === null && loopbackBaseUrl(e.HOST, e.PORT) !== null,
      logLevel: e.LOG_LEVEL,
      corsOrigins: Object.freeze([...e.INTERACTIONS_CORS_ORIGINS]),
      trustProxyHops: e.INTERACTIONS_TRUST_PROXY_HOPS,
      graphiql: e.INTERACTIONS_GRAPHIQL ?? isLoopbackHost(e.HOST),
      graphqlStream: e.INTERACTIONS_GRAPHQL_STREAM,
      metricsPort: e.INTERACTIONS_METRICS_PORT,
      allowedHosts: Object.freeze(e.INTERACTIONS_ALLOWED_HOSTS),
    };
  },
});
