// Composition: the manifest's channel instances as the engine's ChannelPort. The engine sees a
// stored question; a plugin sees only what channelQuestionOf lets through (no media, no asker).
import { type ChannelSet, createChannelSet } from '../channels/channel-set.ts';
import type { ChannelLogger } from '../channels/types.ts';
import { channelQuestionOf } from '../engine/deliveries/question.ts';
import type { ChannelPort } from '../engine/ports.ts';
import type { ManifestSettings } from './config.ts';

export interface ManifestChannels {
  port: ChannelPort;
  close(): Promise<void>;
}

export function channelPort(set: ChannelSet, plugins: Readonly<Record<string, string>>): ChannelPort {
  return {
    names: () => set.names(),
    instance: (name) => set.get(name),
    pluginOf: (name) => plugins[name],
    async deliver(question, callbackUrl) {
      const instance = question.channel === null ? undefined : set.get(question.channel);
      if (!instance) throw new Error('no such channel');
      return instance.deliver(channelQuestionOf(question), callbackUrl);
    },
  };
}

export function manifestChannels(
  settings: ManifestSettings,
  deps: { logger: ChannelLogger; publicBaseUrl: string | null; fetch?: typeof fetch },
): ManifestChannels {
  const { channels } = settings.manifest;
  const set = createChannelSet(channels, {
    env: settings.channelEnv,
    logger: deps.logger,
    publicBaseUrl: deps.publicBaseUrl,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const plugins = Object.fromEntries(Object.entries(channels).map(([name, d]) => [name, d.plugin]));
  return { port: channelPort(set, plugins), close: () => set.close() };
}
