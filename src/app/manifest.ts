// The manifest (API.md §11): which modules load, which verifiers questions may bind, the channel
// instances and the webhook endpoints. Read once at start; every problem is one line naming the
// file and the key path, and never a secret (secrets are only ever named, by environment variable).
//
// Pure over its inputs: the caller passes the working directory and the environment.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { endpointUrl, envName } from '../channels/config-schema.ts';
import { loadChannelPlugin, PluginLoadError } from '../channels/registry.ts';
import type { ChannelPlugin } from '../channels/types.ts';
import { isDomainError } from '../domain/errors.ts';
import { checkEscalationSteps, type EscalationStep } from '../domain/escalation.ts';
import { type Group, parseGroups, RESERVED_IDENTITY_PREFIXES, reservedPrefixOf } from '../domain/groups.ts';
import type { PolicyRule } from '../domain/policy/rule.ts';
import { builtinVerifiers } from '../verifiers/registry.ts';
import { manifestPolicies } from './manifest-policies.ts';

export const DEFAULT_MANIFEST_FILE = 'interactions.yaml';
export const MANIFEST_MAX_BYTES = 1024 * 1024;

export interface ModuleSwitches {
  graphql: boolean;
  rest: boolean;
  callbacks: boolean;
  inbox: boolean;
  mcp: boolean;
  metrics: boolean;
}

export const DEFAULT_MODULES: Readonly<ModuleSwitches> = Object.freeze({
  graphql: true,
  rest: true,
  callbacks: true,
  inbox: true,
  mcp: true,
  metrics: false,
});

export interface ChannelDeclaration {
  /** As written: a built-in name, a package name or a ./path. */
  plugin: string;
  /** The config after the plugin's schema parsed it (defaults applied). */
  config: unknown;
  /** The loaded plugin, ready for `create(config, context)`. */
  implementation: ChannelPlugin;
}

export interface WebhookDeclaration {
  url: string;
  secretEnv: string;
}

export interface Manifest {
  /** The file read, or null when there is none. */
  file: string | null;
  modules: ModuleSwitches;
  verifiers: string[];
  channels: Record<string, ChannelDeclaration>;
  webhooks: Record<string, WebhookDeclaration>;
  /** Named escalation ladders an ask may name (API.md §18). */
  escalationPolicies: Record<string, EscalationStep[]>;
  /** Policy rules (API.md §20), checked and compiled at start; reloaded only by a restart. */
  policies: PolicyRule[];
  /** Groups and their rotations (API.md §22); INTERACTIONS_GROUPS_FILE's are added at start. */
  groups: Group[];
}

export interface LoadManifestInput {
  /** INTERACTIONS_MANIFEST, relative to `cwd`; absent: `interactions.yaml` in `cwd` when it exists. */
  path?: string | undefined;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The verifier names that exist; default: the built-ins. */
  knownVerifiers?: readonly string[];
}

/** One invalid manifest: `<file>: <key path>: <problem>`, on one line. */
export class ManifestError extends Error {
  constructor(
    readonly file: string,
    readonly keyPath: string,
    problem: string,
  ) {
    super(`${file}: ${keyPath || '(top level)'}: ${problem}`.replace(/[\r\n]+/g, ' '));
    this.name = 'ManifestError';
  }
}

/** Instance and endpoint names appear in URLs (`/api/interactions/channels/{name}`). */
const instanceName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/);

function manifestSchema(knownVerifiers: readonly string[]) {
  const known = new Set(knownVerifiers);
  const modules = z.strictObject({
    graphql: z.boolean().optional(),
    rest: z.boolean().optional(),
    callbacks: z.boolean().optional(),
    inbox: z.boolean().optional(),
    mcp: z.boolean().optional(),
    metrics: z.boolean().optional(),
  });
  return z.strictObject({
    modules: modules.optional(),
    verifiers: z
      .array(
        z
          .string()
          .refine((v) => known.has(v), { message: `unknown verifier (known: ${[...known].join(', ')})` }),
      )
      .optional(),
    channels: z
      .record(
        instanceName,
        z.strictObject({
          plugin: z.string().min(1).max(512),
          config: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
    webhooks: z.record(instanceName, z.strictObject({ url: endpointUrl, secretEnv: envName })).optional(),
    // Checked step by step below, against the channels this manifest declares.
    escalationPolicies: z.record(instanceName, z.array(z.unknown())).optional(),
    // Checked rule by rule below (domain/policy), against the channels and escalation policies.
    policies: z.array(z.unknown()).max(10_000).optional(),
    // Checked group by group below (domain/groups.ts), then merged with INTERACTIONS_GROUPS_FILE's.
    groups: z.array(z.unknown()).optional(),
  });
}

function keyPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** A schema without its optional/default/nullable wrappers. */
function unwrapped(node: unknown): unknown {
  let n = node;
  while (n instanceof z.ZodOptional || n instanceof z.ZodDefault || n instanceof z.ZodNullable)
    n = n.unwrap();
  return n;
}

/**
 * The keys the object at `path` of `schema` takes, so an unknown key can be answered with the
 * known ones; null when the path cannot be followed (e.g. a plugin built on another zod copy).
 */
function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] | null {
  let node = unwrapped(schema);
  for (const seg of path) {
    if (node instanceof z.ZodObject) node = (node.shape as Record<PropertyKey, unknown>)[seg];
    else if (node instanceof z.ZodRecord) node = node.valueType;
    else if (node instanceof z.ZodArray) node = node.element;
    else return null;
    node = unwrapped(node);
  }
  return node instanceof z.ZodObject ? Object.keys(node.shape) : null;
}

/**
 * The first issue as a key path and a message; zod's messages name types and keys, never
 * values. An unknown key is answered with the keys the object takes (names from the schema).
 */
function firstIssue(error: z.ZodError, prefix: readonly PropertyKey[], schema?: unknown): [string, string] {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const known = schema === undefined ? null : keysAt(schema, issue.path);
    const message = known?.length ? `unknown key (known: ${known.join(', ')})` : 'unknown key';
    return [keyPath([...prefix, ...issue.path, issue.keys[0]!]), message];
  }
  if (issue.code === 'invalid_key') return [keyPath([...prefix, ...issue.path]), 'invalid name'];
  return [keyPath([...prefix, ...issue.path]), issue.message];
}

function readText(file: string): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new ManifestError(file, '', 'the file cannot be read');
  }
  if (size > MANIFEST_MAX_BYTES)
    throw new ManifestError(file, '', `the file is over ${MANIFEST_MAX_BYTES} bytes`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new ManifestError(file, '', 'the file cannot be read');
  }
}

// Parse errors name a line, never quote it: a mistaken manifest may hold a pasted secret.
function parseText(file: string, text: string): unknown {
  if (extname(file).toLowerCase() === '.json') {
    try {
      return JSON.parse(text);
    } catch {
      throw new ManifestError(file, '', 'not valid JSON');
    }
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line;
    throw new ManifestError(file, '', `not valid YAML${line ? ` (line ${line})` : ''}`);
  }
  try {
    return doc.toJS({ maxAliasCount: 50 }) ?? {};
  } catch {
    throw new ManifestError(file, '', 'not valid YAML');
  }
}

/** Every `…Env` key in a plugin config must name a set, non-empty environment variable. */
function checkEnvNames(
  file: string,
  prefix: string,
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): void {
  if (typeof value !== 'object' || value === null) return;
  for (const [key, v] of Object.entries(value)) {
    const path = `${prefix}.${key}`;
    if (key.endsWith('Env') && typeof v === 'string') {
      if (!env[v]) throw new ManifestError(file, path, `environment variable ${v} is not set`);
    } else {
      checkEnvNames(file, path, v, env);
    }
  }
}

function resolveFile(input: LoadManifestInput): string | null {
  if (input.path !== undefined && input.path !== '') {
    const file = resolve(input.cwd, input.path);
    if (!existsSync(file)) throw new ManifestError(file, '', 'the file does not exist');
    return file;
  }
  const fallback = resolve(input.cwd, DEFAULT_MANIFEST_FILE);
  return existsSync(fallback) ? fallback : null;
}

/**
 * Each policy checked as an ask's `escalation` is (API.md §18), its channels among the ones
 * declared here; whether it fits before a question's timeout is checked when it is used.
 */
function policiesOf(
  file: string,
  raw: Record<string, unknown[]>,
  channels: ReadonlySet<string>,
): Record<string, EscalationStep[]> {
  const out: Record<string, EscalationStep[]> = {};
  for (const [name, steps] of Object.entries(raw)) {
    const base = `escalationPolicies.${name}`;
    try {
      out[name] = checkEscalationSteps(steps, base, channels);
    } catch (err) {
      if (!isDomainError(err)) throw err;
      throw new ManifestError(file, err.field ?? base, err.message);
    }
  }
  return out;
}

export async function loadManifest(input: LoadManifestInput): Promise<Manifest> {
  const knownVerifiers = input.knownVerifiers ?? builtinVerifiers().map((v) => v.name);
  const file = resolveFile(input);
  if (file === null) {
    return {
      file: null,
      modules: { ...DEFAULT_MODULES },
      verifiers: [...knownVerifiers],
      channels: {},
      webhooks: {},
      escalationPolicies: {},
      policies: [],
      groups: [],
    };
  }
  const schema = manifestSchema(knownVerifiers);
  const parsed = schema.safeParse(parseText(file, readText(file)));
  if (!parsed.success) {
    const [path, message] = firstIssue(parsed.error, [], schema);
    throw new ManifestError(file, path, message);
  }
  const raw = parsed.data;

  const channels: Record<string, ChannelDeclaration> = {};
  for (const [name, decl] of Object.entries(raw.channels ?? {})) {
    // A channel's users are `<name>:<id>`: a name such as `oidc` would pass them for signed-in people.
    if (reservedPrefixOf(name) !== null) {
      throw new ManifestError(
        file,
        `channels.${name}`,
        `a channel name must not be or begin with a reserved identity prefix (${RESERVED_IDENTITY_PREFIXES.join(', ')})`,
      );
    }
    let implementation: ChannelPlugin;
    try {
      implementation = await loadChannelPlugin(decl.plugin, dirname(file));
    } catch (err) {
      const why = err instanceof PluginLoadError ? err.message : 'could not be loaded';
      throw new ManifestError(
        file,
        `channels.${name}.plugin`,
        `plugin ${JSON.stringify(decl.plugin)} ${why}`,
      );
    }
    const config = implementation.config.safeParse(decl.config ?? {});
    if (!config.success) {
      const [path, message] = firstIssue(config.error, ['channels', name, 'config'], implementation.config);
      throw new ManifestError(file, path, message);
    }
    checkEnvNames(file, `channels.${name}.config`, config.data, input.env);
    channels[name] = { plugin: decl.plugin, config: config.data, implementation };
  }

  const webhooks: Record<string, WebhookDeclaration> = {};
  for (const [name, hook] of Object.entries(raw.webhooks ?? {})) {
    checkEnvNames(file, `webhooks.${name}`, hook, input.env);
    webhooks[name] = { url: hook.url, secretEnv: hook.secretEnv };
  }

  const channelNames = new Set(Object.keys(channels));
  const escalationPolicies = policiesOf(file, raw.escalationPolicies ?? {}, channelNames);
  const policies = manifestPolicies(
    raw.policies ?? [],
    channelNames,
    new Set(Object.keys(escalationPolicies)),
  );
  if (!Array.isArray(policies)) throw new ManifestError(file, policies.keyPath, policies.message);
  let groups: Group[];
  try {
    groups = parseGroups(raw.groups ?? [], 'groups');
  } catch (err) {
    if (!isDomainError(err)) throw err;
    throw new ManifestError(file, err.field ?? 'groups', err.message);
  }

  return {
    file,
    modules: { ...DEFAULT_MODULES, ...raw.modules },
    verifiers: raw.verifiers ?? [...knownVerifiers],
    channels,
    webhooks,
    escalationPolicies,
    policies,
    groups,
  };
}
