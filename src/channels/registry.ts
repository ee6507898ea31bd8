// Which plugin a manifest's `plugin:` names: a built-in, a file path (relative to the manifest's
// folder) or an npm package name. A loaded module's default export is checked before use.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discordPlugin } from './discord/plugin.ts';
import { emailPlugin } from './email/plugin.ts';
import { slackPlugin } from './slack/plugin.ts';
import { teamsPlugin } from './teams/plugin.ts';
import { telegramPlugin } from './telegram/plugin.ts';
import { twilioPlugin } from './twilio/plugin.ts';
import type { ChannelPlugin } from './types.ts';
import { webhookPlugin } from './webhook.ts';

/** The built-ins by name. */
export function builtinChannelPlugins(): ReadonlyMap<string, ChannelPlugin> {
  return new Map<string, ChannelPlugin>([
    [slackPlugin.name, slackPlugin as ChannelPlugin],
    [telegramPlugin.name, telegramPlugin as ChannelPlugin],
    [twilioPlugin.name, twilioPlugin as ChannelPlugin],
    [discordPlugin.name, discordPlugin as ChannelPlugin],
    [teamsPlugin.name, teamsPlugin as ChannelPlugin],
    [webhookPlugin.name, webhookPlugin as ChannelPlugin],
    [emailPlugin.name, emailPlugin as ChannelPlugin],
  ]);
}

/** A plugin that cannot be loaded or has the wrong shape; the message names the spec, never file contents. */
export class PluginLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginLoadError';
  }
}

export function isFilePathSpec(spec: string): boolean {
  return spec.startsWith('./') || spec.startsWith('../') || isAbsolute(spec);
}

const NPM_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** Checks the shape of a module's default export. */
export function asChannelPlugin(value: unknown): ChannelPlugin {
  const v = value as Partial<ChannelPlugin> | null;
  if (typeof v !== 'object' || v === null) throw new PluginLoadError('its default export is not an object');
  if (typeof v.name !== 'string' || v.name === '')
    throw new PluginLoadError('its default export has no name');
  if (typeof (v.config as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new PluginLoadError('its default export has no zod config schema');
  }
  if (typeof v.create !== 'function') throw new PluginLoadError('its default export has no create function');
  return v as ChannelPlugin;
}

/** The plugin `spec` names, built-ins first; file paths resolve against `baseDir`. */
export async function loadChannelPlugin(spec: string, baseDir: string): Promise<ChannelPlugin> {
  const builtin = builtinChannelPlugins().get(spec);
  if (builtin) return builtin;
  let target: string;
  if (isFilePathSpec(spec)) target = pathToFileURL(resolve(baseDir, spec)).href;
  else if (NPM_NAME.test(spec)) target = spec;
  else {
    const builtins = [...builtinChannelPlugins().keys()].join(', ');
    throw new PluginLoadError(`is not a built-in plugin (${builtins}), a package name or a ./path`);
  }
  let mod: { default?: unknown };
  try {
    mod = (await import(target)) as { default?: unknown };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new PluginLoadError(`could not be loaded${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  return asChannelPlugin(mod.default);
}
