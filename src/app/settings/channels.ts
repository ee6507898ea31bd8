// The manifest (API.md §11) and the variables its channels and resume webhooks name. Read apart
// from the other areas because it is asynchronous (third-party plugins are imported) and is
// judged by the manifest loader, which reports ManifestError naming the file and the key path.
import { loadManifest, type Manifest } from '../manifest.ts';
import type { Env } from './fields.ts';

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
