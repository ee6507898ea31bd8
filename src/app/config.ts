// Every setting of API.md §1, read and validated once. Nothing else reads the environment: the
// caller passes `process.env` (and, for tests, a file reader), so this module is pure over its
// arguments. Any invalid setting is a ConfigError whose message is one line naming the variable.
//
// Empty strings: an empty INTERACTIONS_REDIS_URL, INTERACTIONS_PUBLIC_BASE_URL,
// INTERACTIONS_API_KEYS_FILE or INTERACTIONS_ACCESS_POLICY_FILE counts as unset (deployment
// templates often write `NAME=` for "not used"); the two lists (INTERACTIONS_CORS_ORIGINS,
// INTERACTIONS_VERIFIER_SECRETS) read blank as empty. Every other variable set to the empty string is
// an error, because an empty number, flag, prefix or key list has no sensible meaning and hiding
// it would hide a broken deployment.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { type PrincipalConfig, parsePrincipals } from '../auth/api-keys.ts';
import { DEFAULT_DOOR_POLICY, type DoorPolicy, parseDoorPolicy } from '../auth/door-policy.ts';
import {
  DEFAULT_MAX_PENDING_MEDIA_BYTES,
  DEFAULT_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
  DEFAULT_MAX_PENDING_PER_PRINCIPAL,
} from '../domain/quotas.ts';
import { loadManifest, type Manifest } from './manifest.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const REDIS_MODES = ['standalone', 'cluster', 'sentinel'] as const;
export type RedisMode = (typeof REDIS_MODES)[number];

export interface Config {
  readonly port: number;
  readonly host: string;
  /** null: the embedded in-memory store. */
  readonly redisUrl: string | null;
  /**
   * How INTERACTIONS_REDIS_URL is reached: one server, a Cluster (the URL is a seed node), or
   * a primary found through Sentinel (the URL gives only credentials and TLS).
   */
  readonly redisMode: RedisMode;
  /** Sentinel mode only: the sentinels and the name of the primary they monitor. */
  readonly redisSentinels: readonly { host: string; port: number }[];
  readonly redisSentinelName: string | null;
  /** Replicas that must confirm an answer before it is acknowledged (Redis WAIT); 0: none. */
  readonly redisWaitReplicas: number;
  readonly keyPrefix: string;
  readonly answerTimeoutSeconds: number;
  readonly holdSeconds: number;
  readonly retentionSeconds: number;
  readonly maxPending: number;
  /** Pending questions one principal may have at once (a key's `maxPending` overrides it). */
  readonly maxPendingPerPrincipal: number;
  /** Media bytes of one principal's pending questions together. */
  readonly maxPendingMediaBytesPerPrincipal: number;
  /** Media bytes of every pending question together. */
  readonly maxPendingMediaBytes: number;
  /** An origin without trailing slash, e.g. `https://x.example`; null: callback URLs cannot be minted. */
  readonly publicBaseUrl: string | null;
  readonly callbackMaxBodyBytes: number;
  /** Empty when no keys are configured (the server then mints a one-off admin key). */
  readonly principals: readonly PrincipalConfig[];
  readonly accessControl: boolean;
  readonly doorPolicy: DoorPolicy;
  readonly logLevel: LogLevel;
  readonly reaperIntervalMs: number;
  readonly rateLimitPerMinute: number;
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
  /**
   * The environment variables an operator declared for webhook verifiers
   * (INTERACTIONS_VERIFIER_SECRETS): a binding's `secretEnv` may name only these.
   */
  readonly verifierSecretNames: readonly string[];
  /**
   * The value of a declared verifier variable, read from the environment at start; undefined
   * for any other name or when it is unset or empty. A function, so values never serialize.
   */
  readonly secret: (name: string) => string | undefined;
  /** Serve GET /metrics on a listener of its own (no key; bind HOST to an internal interface); null: none. */
  readonly metricsPort: number | null;
}

export class ConfigError extends Error {
  /** The environment variable at fault. */
  readonly variable: string;

  constructor(variable: string, problem: string) {
    // One line, always: a multi-line cause (a YAML parser's excerpt, say) is folded.
    super(`${variable}: ${problem}`.replace(/\s*[\r\n]+\s*/g, ' '));
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/** A value quoted for an error message: one line, bounded. Only for settings that hold no secret. */
function shown(value: string, max = 40): string {
  const cut = [...value];
  return JSON.stringify(cut.length > max ? `${cut.slice(0, max).join('')}…` : value);
}

export type Env = Record<string, string | undefined>;

// ---------------------------------------------------------------------------------------------
// Field schemas: each maps the raw variable (string | undefined) to its typed value. Every issue
// carries its own one-line message; the value is echoed only where it cannot be a secret.

/** An error message that quotes the offending value (`input` is the raw string or the number read from it). */
function quoting(expected: string) {
  return (issue: { input?: unknown }): string => `expected ${expected}, got ${shown(String(issue.input))}`;
}

function wholeNumber(def: number, min: number, max: number = Number.MAX_SAFE_INTEGER) {
  const error = quoting(
    max === Number.MAX_SAFE_INTEGER
      ? `a whole number of at least ${min}`
      : `a whole number from ${min} to ${max}`,
  );
  return z
    .string()
    .regex(/^[0-9]+$/, { error })
    .transform(Number)
    .pipe(z.number().min(min, { error }).max(max, { error }))
    .default(def);
}

function flag(def: boolean) {
  const error = quoting('true/false, 1/0 or yes/no');
  const words = z.stringbool({ truthy: ['true', '1', 'yes'], falsy: ['false', '0', 'no'], error });
  return z.string().trim().pipe(words).default(def);
}

/** A flag whose absence means "decide from other settings" (undefined). */
function optionalFlag() {
  const error = quoting('true/false, 1/0 or yes/no');
  const words = z.stringbool({ truthy: ['true', '1', 'yes'], falsy: ['false', '0', 'no'], error });
  return z.string().trim().pipe(words).optional();
}

/** Bound to this machine only: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

const hostSchema = z
  .string()
  .regex(/^\S{1,253}$/, { error: quoting('a host name or IP address') })
  .default('127.0.0.1');

const KEY_PREFIX_MAX = 100;
const keyPrefixSchema = z
  .string()
  // `u`: the length counts code points.
  .regex(new RegExp(`^\\S{1,${KEY_PREFIX_MAX}}$`, 'u'), {
    error: quoting(`a non-empty prefix without whitespace, at most ${KEY_PREFIX_MAX} characters`),
  })
  .default('interactions:');

const logLevelSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(LOG_LEVELS, { error: quoting(`one of ${LOG_LEVELS.join(', ')}`) }))
  .default('info');

/** Control characters and whitespace have no place in a URL given in the environment. */
const URL_NOISE = /[\s\p{Cc}]/u;

/**
 * An optional URL setting: unset or empty is null; otherwise `check` judges the parsed URL and
 * returns the value to keep or the reason to refuse it. The value itself is never echoed.
 */
function urlSetting(expected: string, check: (url: URL, raw: string) => { keep: string } | string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): string | null => {
      if (raw === undefined || raw === '') return null;
      const noisy = URL_NOISE.test(raw);
      const url = noisy ? null : URL.parse(raw);
      const verdict = url
        ? check(url, raw)
        : noisy
          ? 'it contains whitespace or control characters'
          : 'not a valid URL';
      if (typeof verdict !== 'string') return verdict.keep;
      ctx.addIssue({ code: 'custom', message: `expected ${expected} (${verdict})` });
      return z.NEVER;
    });
}

// The Redis URL may carry a password, so its value is never echoed.
const redisUrlSchema = urlSetting('a redis:// or rediss:// URL', (url, raw) => {
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return 'wrong scheme';
  if (url.hostname === '') return 'no host';
  return { keep: raw };
});

const redisModeSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(REDIS_MODES, { error: quoting(`one of ${REDIS_MODES.join(', ')}`) }))
  .default('standalone');

const SENTINELS_EXPECTED = 'a comma list of host:port (at most 16)';
/** `host:port` items; IPv6 hosts in brackets. Blank: none. */
const sentinelsSchema = z
  .string()
  .transform((raw, ctx) => {
    const items = raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim());
    const out: { host: string; port: number }[] = [];
    for (const item of items) {
      const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]{1,253}):([0-9]{1,5})$/.exec(item);
      const port = m ? Number(m[2]) : 0;
      if (!m || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: `expected ${SENTINELS_EXPECTED}` });
        return z.NEVER;
      }
      out.push({ host: m[1]!.replace(/^\[|\]$/g, ''), port });
    }
    if (out.length > 16) {
      ctx.addIssue({ code: 'custom', message: `expected ${SENTINELS_EXPECTED}` });
      return z.NEVER;
    }
    return out;
  })
  .default([]);

const sentinelNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,100}$/, { error: quoting('a primary name of letters, digits, . _ -') })
  .optional()
  .transform((v) => v ?? null);

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

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

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The variables verifiers may read: a comma list of names; blank: none. The server's own
 * settings can never be declared (they hold keys and the Redis password).
 */
const verifierSecretsSchema = z
  .string()
  .transform((raw) => (raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim())))
  .pipe(
    z.array(
      z
        .string()
        .regex(ENV_NAME, {
          error: quoting('a comma list of environment variable names (letters, digits, _)'),
        })
        .refine((name) => !OWN_SETTINGS.has(name), {
          error: (issue) =>
            `${String(issue.input)} is one of the server's own settings, not a verifier secret`,
        }),
    ),
  )
  .default([]);

/** A file path; empty counts as unset. */
const optionalPath = z
  .string()
  .optional()
  .transform((raw) => raw || null);

const optionalText = z.string().nullable().default(null);

/** A port for a listener of its own; unset or empty: none. */
const optionalPort = z.preprocess(
  (raw) => (raw === '' ? undefined : raw),
  wholeNumber(0, 1, 65535)
    .optional()
    .transform((port) => port || null),
);

/** The variables, in the order they are checked (the first invalid one is reported). */
const envSchema = z.object({
  PORT: wholeNumber(4000, 1, 65535),
  HOST: hostSchema,
  INTERACTIONS_REDIS_URL: redisUrlSchema,
  INTERACTIONS_REDIS_MODE: redisModeSchema,
  INTERACTIONS_REDIS_SENTINELS: sentinelsSchema,
  INTERACTIONS_REDIS_SENTINEL_NAME: sentinelNameSchema,
  INTERACTIONS_REDIS_WAIT_REPLICAS: wholeNumber(0, 0, 16),
  INTERACTIONS_KEY_PREFIX: keyPrefixSchema,
  INTERACTIONS_ANSWER_TIMEOUT_SECONDS: wholeNumber(3600, 1, 31_536_000),
  INTERACTIONS_HOLD_SECONDS: wholeNumber(50, 0, 3600),
  INTERACTIONS_RETENTION_SECONDS: wholeNumber(604_800, 1),
  INTERACTIONS_MAX_PENDING: wholeNumber(10_000, 1),
  INTERACTIONS_MAX_PENDING_PER_PRINCIPAL: wholeNumber(DEFAULT_MAX_PENDING_PER_PRINCIPAL, 1),
  INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL: wholeNumber(
    DEFAULT_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
    0,
  ),
  INTERACTIONS_MAX_PENDING_MEDIA_BYTES: wholeNumber(DEFAULT_MAX_PENDING_MEDIA_BYTES, 0),
  INTERACTIONS_PUBLIC_BASE_URL: publicBaseUrlSchema,
  INTERACTIONS_CALLBACK_MAX_BODY_BYTES: wholeNumber(65_536, 1, 16_777_216),
  INTERACTIONS_API_KEYS: optionalText,
  INTERACTIONS_API_KEYS_FILE: optionalPath,
  ACCESS_CONTROL_ENABLE: flag(true),
  INTERACTIONS_ACCESS_POLICY_FILE: optionalPath,
  LOG_LEVEL: logLevelSchema,
  INTERACTIONS_REAPER_INTERVAL_MS: wholeNumber(1000, 50, 60_000),
  INTERACTIONS_RATE_LIMIT_PER_MINUTE: wholeNumber(120, 1),
  INTERACTIONS_CORS_ORIGINS: corsOriginsSchema,
  INTERACTIONS_TRUST_PROXY_HOPS: wholeNumber(0, 0, 10),
  // Unset: decided by HOST (graphiqlDefault).
  INTERACTIONS_GRAPHIQL: optionalFlag(),
  INTERACTIONS_GRAPHQL_STREAM: flag(true),
  INTERACTIONS_VERIFIER_SECRETS: verifierSecretsSchema,
  INTERACTIONS_METRICS_PORT: optionalPort,
});

/** Every variable this module reads: none of them may be handed to a verifier. */
const OWN_SETTINGS: ReadonlySet<string> = new Set(Object.keys(envSchema.shape));

// ---------------------------------------------------------------------------------------------
// Files and structured values.

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}

function readSettingFile(variable: string, path: string, readFile: (path: string) => string): string {
  try {
    return readFile(path);
  } catch (err) {
    throw new ConfigError(variable, `cannot read ${shown(path, 300)} (${errorCode(err)})`);
  }
}

function loadPrincipals(
  inline: string | null,
  file: string | null,
  readFile: (path: string) => string,
): PrincipalConfig[] {
  if (inline !== null && file !== null) {
    throw new ConfigError(
      'INTERACTIONS_API_KEYS',
      'set either INTERACTIONS_API_KEYS or INTERACTIONS_API_KEYS_FILE, not both',
    );
  }
  const variable = file !== null ? 'INTERACTIONS_API_KEYS_FILE' : 'INTERACTIONS_API_KEYS';
  const text = file !== null ? readSettingFile(variable, file, readFile) : inline;
  if (text === null) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's own message quotes the text, and the text holds keys: say only what is wrong.
    throw new ConfigError(variable, 'expected a JSON array of principals, got text that is not valid JSON');
  }
  try {
    return parsePrincipals(json);
  } catch (err) {
    throw new ConfigError(variable, `invalid principal ${(err as Error).message}`);
  }
}

function loadDoorPolicy(file: string | null, readFile: (path: string) => string): DoorPolicy {
  const variable = 'INTERACTIONS_ACCESS_POLICY_FILE';
  if (file === null) return DEFAULT_DOOR_POLICY;
  const text = readSettingFile(variable, file, readFile);
  const yaml = /\.ya?ml$/i.test(file);
  let doc: unknown;
  try {
    doc = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    const detail = (String((err as Error).message ?? '').split('\n')[0] ?? '').replace(/:\s*$/, '');
    throw new ConfigError(variable, `${shown(file, 300)} is not valid ${yaml ? 'YAML' : 'JSON'}: ${detail}`);
  }
  try {
    return parseDoorPolicy(doc);
  } catch (err) {
    throw new ConfigError(variable, `${shown(file, 300)}: ${(err as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------

/** Copies only the declared variables, so nothing else in the environment is reachable. */
function secretLookup(env: Env, names: readonly string[]): (name: string) => string | undefined {
  const copy = new Map<string, string>();
  for (const name of names) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value) copy.set(name, value);
  }
  return (name) => copy.get(name);
}

/**
 * Settings that are valid but probably not what the operator meant: said once at start, as
 * warnings, so they are seen before they bite.
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.redisUrl !== null && config.accessControl && config.principals.length === 0) {
    warnings.push(
      'INTERACTIONS_REDIS_URL is set but no API keys are configured: every instance mints its own ' +
        'one-off admin key, which the other instances refuse; set INTERACTIONS_API_KEYS (or ' +
        'INTERACTIONS_API_KEYS_FILE) when several instances share this Redis',
    );
  }
  return warnings;
}

/** The Redis settings that only make sense together. */
function checkRedisMode(e: z.infer<typeof envSchema>): void {
  const sentinel = e.INTERACTIONS_REDIS_MODE === 'sentinel';
  if (e.INTERACTIONS_REDIS_MODE !== 'standalone' && e.INTERACTIONS_REDIS_URL === null) {
    throw new ConfigError(
      'INTERACTIONS_REDIS_MODE',
      `${e.INTERACTIONS_REDIS_MODE} needs INTERACTIONS_REDIS_URL`,
    );
  }
  const db = e.INTERACTIONS_REDIS_URL === null ? '' : new URL(e.INTERACTIONS_REDIS_URL).pathname.slice(1);
  if (e.INTERACTIONS_REDIS_MODE === 'cluster' && db !== '' && db !== '0') {
    throw new ConfigError(
      'INTERACTIONS_REDIS_URL',
      'a Redis Cluster has only database 0: drop the /<db> path',
    );
  }
  if (e.INTERACTIONS_REDIS_WAIT_REPLICAS > 0 && e.INTERACTIONS_REDIS_MODE === 'cluster') {
    throw new ConfigError(
      'INTERACTIONS_REDIS_WAIT_REPLICAS',
      'not supported when INTERACTIONS_REDIS_MODE is cluster',
    );
  }
  if (sentinel && e.INTERACTIONS_REDIS_SENTINELS.length === 0) {
    throw new ConfigError(
      'INTERACTIONS_REDIS_SENTINELS',
      'required when INTERACTIONS_REDIS_MODE is sentinel',
    );
  }
  if (sentinel && e.INTERACTIONS_REDIS_SENTINEL_NAME === null) {
    throw new ConfigError(
      'INTERACTIONS_REDIS_SENTINEL_NAME',
      'required when INTERACTIONS_REDIS_MODE is sentinel',
    );
  }
  if (
    !sentinel &&
    (e.INTERACTIONS_REDIS_SENTINELS.length > 0 || e.INTERACTIONS_REDIS_SENTINEL_NAME !== null)
  ) {
    const variable =
      e.INTERACTIONS_REDIS_SENTINELS.length > 0
        ? 'INTERACTIONS_REDIS_SENTINELS'
        : 'INTERACTIONS_REDIS_SENTINEL_NAME';
    throw new ConfigError(variable, 'only used when INTERACTIONS_REDIS_MODE is sentinel');
  }
}

/**
 * Reads every setting from `env` (the caller passes `process.env`). Files named by
 * INTERACTIONS_API_KEYS_FILE and INTERACTIONS_ACCESS_POLICY_FILE are read with `readFile`
 * (default: UTF-8 from disk). Returns a frozen Config; throws ConfigError on the first invalid
 * setting.
 */
export function loadConfig(
  env: Env,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    // A non-string value cannot come from a real environment; report it without the value.
    const problem = issue?.code === 'invalid_type' ? 'expected a string' : (issue?.message ?? 'invalid');
    throw new ConfigError(variable, problem);
  }
  const e = parsed.data;
  const principals = loadPrincipals(e.INTERACTIONS_API_KEYS, e.INTERACTIONS_API_KEYS_FILE, readFile);
  const doorPolicy = loadDoorPolicy(e.INTERACTIONS_ACCESS_POLICY_FILE, readFile);
  checkRedisMode(e);
  if (e.INTERACTIONS_METRICS_PORT === e.PORT) {
    throw new ConfigError('INTERACTIONS_METRICS_PORT', 'must differ from PORT');
  }
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    redisUrl: e.INTERACTIONS_REDIS_URL,
    redisMode: e.INTERACTIONS_REDIS_MODE,
    redisSentinels: Object.freeze(e.INTERACTIONS_REDIS_SENTINELS),
    redisSentinelName: e.INTERACTIONS_REDIS_SENTINEL_NAME,
    redisWaitReplicas: e.INTERACTIONS_REDIS_WAIT_REPLICAS,
    keyPrefix: e.INTERACTIONS_KEY_PREFIX,
    answerTimeoutSeconds: e.INTERACTIONS_ANSWER_TIMEOUT_SECONDS,
    holdSeconds: e.INTERACTIONS_HOLD_SECONDS,
    retentionSeconds: e.INTERACTIONS_RETENTION_SECONDS,
    maxPending: e.INTERACTIONS_MAX_PENDING,
    maxPendingPerPrincipal: e.INTERACTIONS_MAX_PENDING_PER_PRINCIPAL,
    maxPendingMediaBytesPerPrincipal: e.INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
    maxPendingMediaBytes: e.INTERACTIONS_MAX_PENDING_MEDIA_BYTES,
    publicBaseUrl: e.INTERACTIONS_PUBLIC_BASE_URL,
    callbackMaxBodyBytes: e.INTERACTIONS_CALLBACK_MAX_BODY_BYTES,
    principals: Object.freeze(principals),
    accessControl: e.ACCESS_CONTROL_ENABLE,
    doorPolicy,
    logLevel: e.LOG_LEVEL,
    reaperIntervalMs: e.INTERACTIONS_REAPER_INTERVAL_MS,
    verifierSecretNames: Object.freeze([...new Set(e.INTERACTIONS_VERIFIER_SECRETS)]),
    secret: secretLookup(env, e.INTERACTIONS_VERIFIER_SECRETS),
    rateLimitPerMinute: e.INTERACTIONS_RATE_LIMIT_PER_MINUTE,
    corsOrigins: Object.freeze([...e.INTERACTIONS_CORS_ORIGINS]),
    trustProxyHops: e.INTERACTIONS_TRUST_PROXY_HOPS,
    graphiql: e.INTERACTIONS_GRAPHIQL ?? isLoopbackHost(e.HOST),
    graphqlStream: e.INTERACTIONS_GRAPHQL_STREAM,
    metricsPort: e.INTERACTIONS_METRICS_PORT,
  });
}

// ---------------------------------------------------------------------------------------------

/** The manifest (API.md §11) and the environment variables its channels name, read at start. */
export interface ManifestSettings {
  manifest: Manifest;
  /** Only the variables named by the channels' `…Env` keys: nothing else is reachable. */
  channelEnv: Readonly<Record<string, string | undefined>>;
  /** The resume-webhook endpoints with their secrets read from each `secretEnv` (set: the loader checks). */
  webhookEndpoints: Readonly<Record<string, { url: string; secret: string }>>;
}

function envNamesIn(value: unknown, out: Set<string>): Set<string> {
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, v] of Object.entries(value)) {
    if (key.endsWith('Env') && typeof v === 'string') out.add(v);
    else envNamesIn(v, out);
  }
  return out;
}

/**
 * Reads INTERACTIONS_MANIFEST (relative to `cwd`; absent or empty: `interactions.yaml` in `cwd`
 * when it exists). Async because third-party plugins are imported. An invalid manifest throws
 * ManifestError, one line naming the file and the key path.
 */
export async function loadManifestSettings(env: Env, cwd: string): Promise<ManifestSettings> {
  const manifest = await loadManifest({ path: env.INTERACTIONS_MANIFEST, cwd, env });
  const names = new Set<string>();
  for (const decl of Object.values(manifest.channels)) envNamesIn(decl.config, names);
  const channelEnv: Record<string, string | undefined> = {};
  for (const name of names) channelEnv[name] = Object.hasOwn(env, name) ? env[name] : undefined;
  const webhookEndpoints: Record<string, { url: string; secret: string }> = {};
  for (const [name, hook] of Object.entries(manifest.webhooks)) {
    webhookEndpoints[name] = { url: hook.url, secret: env[hook.secretEnv] ?? '' };
  }
  return {
    manifest,
    channelEnv: Object.freeze(channelEnv),
    webhookEndpoints: Object.freeze(webhookEndpoints),
  };
}
