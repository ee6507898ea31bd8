// What the server says at start about its public base URL (API.md §1): the loopback default it
// took, and every channel that cannot reach people because of it. Pure over the settings, so it
// is tested without a process; main.ts logs each line as a warning.
import type { Config, ManifestSettings } from './config.ts';

export function baseUrlNotices(
  config: Pick<Config, 'publicBaseUrl' | 'publicBaseUrlDefaulted'>,
  manifest: Pick<ManifestSettings, 'manifest'> | undefined,
): string[] {
  const channels = Object.entries(manifest?.manifest.channels ?? {});
  const notices: string[] = [];
  if (config.publicBaseUrlDefaulted) {
    notices.push(
      `INTERACTIONS_PUBLIC_BASE_URL is not set: callback URLs use ${config.publicBaseUrl}, which only ` +
        'this machine can open; set it to an https:// origin that people and providers can reach',
    );
    for (const [name, { plugin }] of channels) {
      notices.push(
        `channel ${name} (${plugin}): its links point at ${config.publicBaseUrl}, which its recipients ` +
          'cannot reach; set INTERACTIONS_PUBLIC_BASE_URL',
      );
    }
  } else if (config.publicBaseUrl === null) {
    for (const [name, { plugin }] of channels) {
      notices.push(
        `channel ${name} (${plugin}) cannot be used: INTERACTIONS_PUBLIC_BASE_URL is not set, so ` +
          'questions to it fail with NOT_CONFIGURED',
      );
    }
  }
  return notices;
}
