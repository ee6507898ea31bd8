// Every setting of API.md §1, read and validated once. Nothing else reads the environment: the
// caller passes `process.env` (and, for tests, a file reader), so this module is pure over its
// arguments. Any invalid setting is a ConfigError whose message is one line naming the variable.
//
// The settings are kept by concern, one module per area under ./settings/ (server, store, limits,
// keys; the manifest and its channels in settings/channels.ts). Each declares its variables with
// the field builders of settings/fields.ts and turns them into its typed group; this module only
// composes them. A new area (receipt keys §16, the audit log §17, OIDC and sessions §19, VAPID
// and push hosts §19) is one more module exporting `settingsArea({ env, read })` and its group,
// and one line in each of the three places below: Config, envSchema and loadConfig.
//
// Empty strings: an empty INTERACTIONS_REDIS_URL, INTERACTIONS_PUBLIC_BASE_URL,
// INTERACTIONS_API_KEYS_FILE or INTERACTIONS_ACCESS_POLICY_FILE counts as unset (deployment
// templates often write `NAME=` for "not used"); the two lists (INTERACTIONS_CORS_ORIGINS,
// INTERACTIONS_VERIFIER_SECRETS) read blank as empty. Every other variable set to the empty string is
// an error, because an empty number, flag, prefix or key list has no sensible meaning and hiding
// it would hide a broken deployment.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type AuditSettings, auditSettings } from './settings/audit.ts';
import { ConfigError, type Env, type SettingsIO } from './settings/fields.ts';
import { type GroupSettings, groupSettings } from './settings/groups.ts';
import { type KeySettings, keySettings } from './settings/keys.ts';
import { type LimitSettings, limitSettings } from './settings/limits.ts';
import { type McpSettings, mcpSettings } from './settings/mcp.ts';
import { type OidcSettings, oidcSettings } from './settings/oidc.ts';
import { type OtelSettingsGroup, otelSettings } from './settings/otel.ts';
import { type PushSettings, pushSettings } from './settings/push.ts';
import { type ReceiptSettings, receiptSettings } from './settings/receipts.ts';
import { type ServerSettings, serverSettings } from './settings/server.ts';
import { type StoreSettings, storeSettings } from './settings/store.ts';

export { loadManifestSettings, type ManifestSettings } from './settings/channels.ts';
export { ConfigError, type Env } from './settings/fields.ts';
export type { OtelSettings } from './settings/otel.ts';
export { isLoopbackHost, LOG_LEVELS, type LogLevel } from './settings/server.ts';
export { REDIS_MODES, type RedisMode } from './settings/store.ts';

export interface Config
  extends ServerSettings,
    StoreSettings,
    LimitSettings,
    KeySettings,
    ReceiptSettings,
    OidcSettings,
    PushSettings,
    McpSettings,
    AuditSettings,
    OtelSettingsGroup,
    GroupSettings {}

/**
 * Every variable of every area in one schema, so the environment is parsed once and the first
 * invalid variable (in this order) is the one reported.
 */
const envSchema = z.object({
  ...serverSettings.env,
  ...storeSettings.env,
  ...limitSettings.env,
  ...keySettings.env,
  ...receiptSettings.env,
  ...oidcSettings.env,
  ...pushSettings.env,
  ...mcpSettings.env,
  ...auditSettings.env,
  ...otelSettings.env,
  ...groupSettings.env,
});

/** Every variable this module reads: none of them may be handed to a verifier. */
const OWN_SETTINGS: ReadonlySet<string> = new Set(Object.keys(envSchema.shape));

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
  const io: SettingsIO = { env, readFile, ownSettings: OWN_SETTINGS };
  // The rules spanning several variables, in this order: keys (and their files), store, server.
  const keys = keySettings.read(e, io);
  const store = storeSettings.read(e, io);
  const server = serverSettings.read(e, io);
  const limits = limitSettings.read(e, io);
  const receipts = receiptSettings.read(e, io);
  const oidc = oidcSettings.read(e, io);
  const push = pushSettings.read(e, io);
  const mcp = mcpSettings.read(e, io);
  const audit = auditSettings.read(e, io);
  const otel = otelSettings.read(e, io);
  const groups = groupSettings.read(e, io);
  return Object.freeze({
    ...server,
    ...store,
    ...limits,
    ...keys,
    ...receipts,
    ...oidc,
    ...push,
    ...mcp,
    ...audit,
    ...otel,
    ...groups,
  });
}
