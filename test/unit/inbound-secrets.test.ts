// A channel whose inbound door would have no secret to check a provider's signature with never
// starts (API.md §9, §11): the manifest naming it is refused with one line naming the channel's
// key and the variable, never a value. So the door's own fail-closed 500 (kept, in
// src/channels/verified-inbound.ts) is not reachable through a manifest.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifestSettings } from '../../src/app/config.ts';
import { ManifestError } from '../../src/app/manifest.ts';
import { manifestDir } from '../support/channel-server.ts';

/** Each built-in channel with an inbound door: its config, its variables, and the door's secret. */
const CHANNELS = [
  {
    plugin: 'slack',
    config: '{ botTokenEnv: IN_TOKEN, signingSecretEnv: IN_SECRET }',
    env: { IN_TOKEN: 'xoxb-1', IN_SECRET: 'slack-signing-secret-value' },
    secret: ['signingSecretEnv', 'IN_SECRET'],
  },
  {
    plugin: 'telegram',
    config: '{ botTokenEnv: IN_TOKEN, webhookSecretEnv: IN_SECRET }',
    env: { IN_TOKEN: '123:abc', IN_SECRET: 'telegram-webhook-secret-value' },
    secret: ['webhookSecretEnv', 'IN_SECRET'],
  },
  {
    plugin: 'twilio',
    config: "{ accountSidEnv: IN_SID, authTokenEnv: IN_SECRET, from: '+15005550006' }",
    env: { IN_SID: 'AC0123', IN_SECRET: 'twilio-auth-token-value' },
    secret: ['authTokenEnv', 'IN_SECRET'],
  },
  {
    plugin: 'email',
    config:
      "{ smtpUrlEnv: IN_SMTP, from: 'ops@example.com', inbound: { provider: mailgun, secretEnv: IN_SECRET, basicAuthEnv: IN_BASIC } }",
    env: {
      IN_SMTP: 'smtp://127.0.0.1:2525',
      IN_SECRET: 'mailgun-signing-key-value',
      IN_BASIC: 'mailgun:route-password-value',
    },
    secret: ['inbound.secretEnv', 'IN_SECRET'],
  },
  {
    plugin: 'teams',
    config: '{ appIdEnv: IN_SECRET, appPasswordEnv: IN_PASSWORD }',
    env: { IN_SECRET: 'teams-app-id-value', IN_PASSWORD: 'teams-password-value' },
    secret: ['appIdEnv', 'IN_SECRET'],
  },
] as const;

describe.each(CHANNELS)('a $plugin channel', ({ plugin, config, env, secret }) => {
  const dir = manifestDir(`channels:\n  door-${plugin}:\n    plugin: ${plugin}\n    config: ${config}\n`);
  const [key, variable] = secret;

  it('with its door’s secret unset is refused at start, in one line naming the channel and the variable', async () => {
    const { [variable]: _unset, ...rest } = env as Record<string, string>;
    const refused = await loadManifestSettings(rest, dir).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ManifestError);
    const message = (refused as Error).message;
    expect(message).toBe(
      `${join(dir, 'interactions.yaml')}: channels.door-${plugin}.config.${key}: environment variable ${variable} is not set`,
    );
    expect(message).not.toMatch(/\n/);
    for (const value of Object.values(rest)) expect(message).not.toContain(value);
  });

  it('with it set to the empty string is refused alike', async () => {
    const refused = await loadManifestSettings({ ...env, [variable]: '' }, dir).catch((err: unknown) => err);
    expect((refused as Error).message).toContain(`environment variable ${variable} is not set`);
  });

  it('with every variable set starts, its door holding the secret', async () => {
    const settings = await loadManifestSettings(env, dir);
    expect(Object.keys(settings.manifest.channels)).toEqual([`door-${plugin}`]);
    expect(settings.channelEnv[variable]).toBe(env[variable as keyof typeof env]);
  });
});
