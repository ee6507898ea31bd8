// Who may come in: the API keys (inline or from a file), whether access control is on, the door
// policy (which doors are public), and the variables webhook verifiers may read (API.md §1, §2, §8).
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { type PrincipalConfig, parsePrincipals } from '../../auth/api-keys.ts';
import { DEFAULT_DOOR_POLICY, type DoorPolicy, parseDoorPolicy } from '../../auth/door-policy.ts';
import {
  ConfigError,
  type Env,
  flag,
  optionalPath,
  optionalText,
  quoting,
  readSettingFile,
  settingsArea,
  shown,
} from './fields.ts';

export interface KeySettings {
  /** Empty when no keys are configured (the server then mints a one-off admin key). */
  readonly principals: readonly PrincipalConfig[];
  readonly accessControl: boolean;
  readonly doorPolicy: DoorPolicy;
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
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The variables verifiers may read: a comma list of names; blank: none. That none of them is one
 * of the server's own settings (they hold keys and the Redis password) is checked in `read`,
 * which knows every area's names.
 */
const verifierSecretsSchema = z
  .string()
  .transform((raw) => (raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim())))
  .pipe(
    z.array(
      z.string().regex(ENV_NAME, {
        error: quoting('a comma list of environment variable names (letters, digits, _)'),
      }),
    ),
  )
  .default([]);

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

/** Copies only the declared variables, so nothing else in the environment is reachable. */
function secretLookup(env: Env, names: readonly string[]): (name: string) => string | undefined {
  const copy = new Map<string, string>();
  for (const name of names) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value) copy.set(name, value);
  }
  return (name) => copy.get(name);
}

export const keySettings = settingsArea({
  env: {
    INTERACTIONS_API_KEYS: optionalText,
    INTERACTIONS_API_KEYS_FILE: optionalPath,
    ACCESS_CONTROL_ENABLE: flag(true),
    INTERACTIONS_ACCESS_POLICY_FILE: optionalPath,
    INTERACTIONS_VERIFIER_SECRETS: verifierSecretsSchema,
  },
  read(e, io): KeySettings {
    const own = e.INTERACTIONS_VERIFIER_SECRETS.find((name) => io.ownSettings.has(name));
    if (own !== undefined) {
      throw new ConfigError(
        'INTERACTIONS_VERIFIER_SECRETS',
        `${own} is one of the server's own settings, not a verifier secret`,
      );
    }
    const principals = loadPrincipals(e.INTERACTIONS_API_KEYS, e.INTERACTIONS_API_KEYS_FILE, io.readFile);
    const doorPolicy = loadDoorPolicy(e.INTERACTIONS_ACCESS_POLICY_FILE, io.readFile);
    return {
      principals: Object.freeze(principals),
      accessControl: e.ACCESS_CONTROL_ENABLE,
      doorPolicy,
      verifierSecretNames: Object.freeze([...new Set(e.INTERACTIONS_VERIFIER_SECRETS)]),
      secret: secretLookup(io.env, e.INTERACTIONS_VERIFIER_SECRETS),
    };
  },
});
