// `tai channels setup <name>`: the one-time provider set-up of a channel instance (e.g.
// Telegram's setWebhook with the secret token and the inbound door's URL), run where the server
// runs, from the same settings and manifest, so a user never hand-crafts that call.
import type { ChannelLogger } from '../channels/types.ts';
import { manifestChannels } from './channel-port.ts';
import { type Env, loadConfig, loadManifestSettings } from './config.ts';

export class ChannelSetupError extends Error {}

/** Runs the named channel's `setup()` and returns the line it reports. Secrets never appear in errors. */
export async function setupChannel(
  name: string,
  env: Env,
  cwd: string,
  logger: ChannelLogger,
): Promise<string> {
  const config = loadConfig(env);
  // The loopback default is no use here: the provider must reach the door from outside.
  if (config.publicBaseUrl === null || config.publicBaseUrlDefaulted) {
    throw new ChannelSetupError(
      'INTERACTIONS_PUBLIC_BASE_URL is not set: the provider needs the public URL of the inbound door',
    );
  }
  const settings = await loadManifestSettings(env, cwd);
  const made = manifestChannels(settings, { logger, publicBaseUrl: config.publicBaseUrl });
  try {
    const instance = made.port.instance?.(name);
    if (!instance) {
      const names = Object.keys(settings.manifest.channels);
      const known = names.length ? `it has ${names.join(', ')}` : 'it names none';
      throw new ChannelSetupError(`no channel named ${name} in the manifest (${known})`);
    }
    if (!instance.setup) {
      const plugin = settings.manifest.channels[name]?.plugin ?? 'its plugin';
      throw new ChannelSetupError(`channel ${name} (${plugin}) needs no set-up`);
    }
    return await instance.setup();
  } finally {
    await made.close();
  }
}
