// The pieces every settings area is built from: the one error type, the field builders that give
// each variable its own one-line message, and the shape of an area. An area module (server.ts,
// store.ts, …) declares its variables with these and turns the parsed values into its typed group;
// src/app/config.ts composes the areas and reads the environment once.
import { z } from 'zod';

export type Env = Record<string, string | undefined>;

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
export function shown(value: string, max = 40): string {
  const cut = [...value];
  return JSON.stringify(cut.length > max ? `${cut.slice(0, max).join('')}…` : value);
}

// ---------------------------------------------------------------------------------------------
// Field schemas: each maps the raw variable (string | undefined) to its typed value. Every issue
// carries its own one-line message; the value is echoed only where it cannot be a secret.

/** An error message that quotes the offending value (`input` is the raw string or the number read from it). */
export function quoting(expected: string) {
  return (issue: { input?: unknown }): string => `expected ${expected}, got ${shown(String(issue.input))}`;
}

export function wholeNumber(def: number, min: number, max: number = Number.MAX_SAFE_INTEGER) {
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

export function flag(def: boolean) {
  const error = quoting('true/false, 1/0 or yes/no');
  const words = z.stringbool({ truthy: ['true', '1', 'yes'], falsy: ['false', '0', 'no'], error });
  return z.string().trim().pipe(words).default(def);
}

/** A flag whose absence means "decided by other settings" (undefined). */
export function optionalFlag() {
  const error = quoting('true/false, 1/0 or yes/no');
  const words = z.stringbool({ truthy: ['true', '1', 'yes'], falsy: ['false', '0', 'no'], error });
  return z.string().trim().pipe(words).optional();
}

/** Control characters and whitespace have no place in a URL given in the environment. */
const URL_NOISE = /[\s\p{Cc}]/u;

/**
 * An optional URL setting: unset or empty is null; otherwise `check` judges the parsed URL and
 * returns the value to keep or the reason to refuse it. The value itself is never echoed.
 */
export function urlSetting(expected: string, check: (url: URL, raw: string) => { keep: string } | string) {
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

/** A file path; empty counts as unset. */
export const optionalPath = z
  .string()
  .optional()
  .transform((raw) => raw || null);

export const optionalText = z.string().nullable().default(null);

/** A port for a listener of its own; unset or empty: none. */
export const optionalPort = z.preprocess(
  (raw) => (raw === '' ? undefined : raw),
  wholeNumber(0, 1, 65535)
    .optional()
    .transform((port) => port || null),
);

// ---------------------------------------------------------------------------------------------
// Files named by a setting.

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}

/** Reads a file named by `variable`; a failure is a ConfigError naming the variable and the path. */
export function readSettingFile(variable: string, path: string, readFile: (path: string) => string): string {
  try {
    return readFile(path);
  } catch (err) {
    throw new ConfigError(variable, `cannot read ${shown(path, 300)} (${errorCode(err)})`);
  }
}

// ---------------------------------------------------------------------------------------------
// An area of settings.

/** What an area may use besides its own parsed variables. */
export interface SettingsIO {
  /** The whole environment as given to loadConfig (for values read by a name a setting declares). */
  readonly env: Env;
  readonly readFile: (path: string) => string;
  /** Every variable the areas declare: a setting that names another variable may not name these. */
  readonly ownSettings: ReadonlySet<string>;
}

/**
 * One concern's settings: `env` declares its variables (each a field schema with its own
 * message), `read` turns their parsed values into the area's typed group, checking the rules
 * that span several of its variables and reading any files they name. `read` throws ConfigError.
 */
export interface SettingsArea<S extends z.ZodRawShape, G> {
  readonly env: S;
  readonly read: (values: z.output<z.ZodObject<S>>, io: SettingsIO) => G;
}

/** Declares an area, keeping the types of its variables and its group. */
export function settingsArea<S extends z.ZodRawShape, G>(area: SettingsArea<S, G>): SettingsArea<S, G> {
  return area;
}
