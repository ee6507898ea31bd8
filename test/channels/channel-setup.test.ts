// `tai channels setup <name>`: run beside the server from its settings and manifest, it calls the
// channel's own set-up (Telegram's setWebhook with the secret token and the inbound door's URL),
// through the real CLI command, against the local fake of the Telegram Bot API.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupChannel } from '../../src/app/channel-setup.ts';
import { type CliResult, runCliInProcess } from '../support/cli-run.ts';
import { type FakeTelegram, startFakeTelegram } from '../support/fakes/telegram.ts';

const TOKEN = '123456:setup-test-token';
const SECRET = 'tg_setup-secret_0001';
const quiet = { info() {}, warn() {}, error() {} };

describe('tai channels setup', () => {
  let tg: FakeTelegram;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    tg = await startFakeTelegram(TOKEN);
    dir = mkdtempSync(path.join(tmpdir(), 'tai-setup-'));
    writeFileSync(
      path.join(dir, 'interactions.yaml'),
      [
        'channels:',
        '  ops-tg:',
        '    plugin: telegram',
        `    config: { botTokenEnv: TG_TOKEN, webhookSecretEnv: TG_SECRET, apiRoot: "${tg.apiRoot}" }`,
        '  hooks:',
        '    plugin: webhook',
        '    config: { url: "https://receiver.example/hook", secretEnv: HOOK_SECRET }',
        '',
      ].join('\n'),
    );
    env = {
      TG_TOKEN: TOKEN,
      TG_SECRET: SECRET,
      HOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      INTERACTIONS_PUBLIC_BASE_URL: 'https://tai.example',
    };
  });
  afterAll(async () => {
    await tg.close();
  });

  function cli(args: string[]): Promise<CliResult> {
    return runCliInProcess(args, { setupChannel: (name) => setupChannel(name, env, dir, quiet) });
  }

  it('registers the inbound door with the secret token and says where, never the secret', async () => {
    const r = await cli(['channels', 'setup', 'ops-tg']);
    expect(r.code).toBe(0);
    expect(tg.callsTo('setWebhook').at(-1)!.args).toMatchObject({
      url: 'https://tai.example/api/interactions/channels/ops-tg',
      secret_token: SECRET,
    });
    expect(r.stdout).toContain('https://tai.example/api/interactions/channels/ops-tg');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('an unknown channel, a channel with nothing to set up, and a missing public URL are one-line errors', async () => {
    const calls = tg.callsTo('setWebhook').length;
    const unknown = await cli(['channels', 'setup', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no channel named nope in the manifest (it has ops-tg, hooks)');
    const none = await cli(['channels', 'setup', 'hooks']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('channel hooks (webhook) needs no set-up');
    const { INTERACTIONS_PUBLIC_BASE_URL: _, ...noBase } = env;
    await expect(setupChannel('ops-tg', noBase, dir, quiet)).rejects.toThrow('INTERACTIONS_PUBLIC_BASE_URL');
    expect(tg.callsTo('setWebhook').length).toBe(calls);
  });
});
