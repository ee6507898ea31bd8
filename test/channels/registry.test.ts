import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinChannelPlugins, loadChannelPlugin, PluginLoadError } from '../../src/channels/registry.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function module(name: string, source: string): string {
  writeFileSync(path.join(dir, name), source);
  return `./${name}`;
}

describe('channel plugin registry and loader', () => {
  it('the built-ins are discord, email, slack, teams, telegram, twilio and webhook', () => {
    expect([...builtinChannelPlugins().keys()].sort()).toEqual([
      'discord',
      'email',
      'slack',
      'teams',
      'telegram',
      'twilio',
      'webhook',
    ]);
  });

  it('a built-in name wins over anything else', async () => {
    expect((await loadChannelPlugin('slack', dir)).name).toBe('slack');
  });

  it('loads a plugin by file path relative to the base folder, and by absolute path', async () => {
    const spec = module(
      'ok.mjs',
      "export default { name: 'ok', config: { safeParse: (v) => ({ success: true, data: v }) }, create: () => ({}) };\n",
    );
    expect((await loadChannelPlugin(spec, dir)).name).toBe('ok');
    expect((await loadChannelPlugin(path.join(dir, 'ok.mjs'), '/')).name).toBe('ok');
  });

  it('loads a plugin by npm package name (zod stands in: its default export is refused by shape)', async () => {
    await expect(loadChannelPlugin('zod', dir)).rejects.toThrow(PluginLoadError);
    await expect(loadChannelPlugin('no-such-package-tai-test', dir)).rejects.toThrow('could not be loaded');
  });

  it.each([
    ['no default export', 'export const x = 1;\n', 'not an object'],
    ['no name', 'export default { config: { safeParse() {} }, create() {} };\n', 'no name'],
    ['no zod schema', "export default { name: 'x', config: {}, create() {} };\n", 'no zod config schema'],
    ['no create', "export default { name: 'x', config: { safeParse() {} } };\n", 'no create function'],
  ])('refuses a module with %s', async (_what, source, message) => {
    const spec = module(`bad-${message.replace(/\W/g, '')}.mjs`, source);
    await expect(loadChannelPlugin(spec, dir)).rejects.toThrow(message);
  });

  it('refuses a spec that is neither a name nor a path, and a module that fails to import', async () => {
    await expect(loadChannelPlugin('Not A Package', dir)).rejects.toThrow('not a built-in plugin');
    const spec = module('throws.mjs', "throw new Error('secret-in-module');\n");
    const err = await loadChannelPlugin(spec, dir).catch((e: Error) => e);
    expect(err).toBeInstanceOf(PluginLoadError);
    expect((err as Error).message).not.toContain('secret-in-module');
  });
});

describe('the example plugin in examples/channels', () => {
  let receiver: HttpReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('loads from its file path, validates its config and delivers', async () => {
    const plugin = await loadChannelPlugin('./examples/channels/ntfy-channel.ts', process.cwd());
    expect(plugin.name).toBe('ntfy');
    expect(plugin.config.safeParse({ topicUrl: receiver.url }).success).toBe(false);
    const config = plugin.config.parse({ topicUrl: receiver.url, tokenEnv: 'NTFY_TOKEN' });
    const instance = plugin.create(config, channelContext('phone', { NTFY_TOKEN: 'tk_example' }));
    const receipt = await instance.deliver(
      channelQuestion({ text: 'Deploy now?' }),
      'https://tai.example/cb/T',
    );
    expect(receipt).toEqual({ topic: receiver.url });
    const req = receiver.requests.at(-1)!;
    expect(req.body.toString()).toBe('Deploy now?');
    expect(req.headers).toMatchObject({
      authorization: 'Bearer tk_example',
      click: 'https://tai.example/cb/T',
    });
    await instance.onResolved!(channelQuestion({ status: 'TIMED_OUT' }), receipt);
    expect(receiver.requests.at(-1)!.body.toString()).toContain('timed_out');
  });
});
