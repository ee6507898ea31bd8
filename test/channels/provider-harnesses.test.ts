// The Discord and Teams harnesses under one small contract, as the shared channel suite will run
// them: delivery reaches the fake, a signed CONFIRM answers, a tampered one is 401, a refused
// delivery throws, and an edit after resolution reaches the fake.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinChannelPlugins } from '../../src/channels/registry.ts';
import type { ChannelInstance } from '../../src/channels/types.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { startDiscordHarness } from '../support/fakes/discord-harness.ts';
import type { ProviderHarness } from '../support/fakes/provider-harness.ts';
import { startTeamsHarness } from '../support/fakes/teams-harness.ts';

describe.each([
  ['discord', startDiscordHarness],
  ['teams', startTeamsHarness],
])('%s harness', (name, start) => {
  let h: ProviderHarness;
  let channel: ChannelInstance;
  beforeAll(async () => {
    h = await start();
    const plugin = builtinChannelPlugins().get(h.plugin)!;
    channel = plugin.create(plugin.config.parse(h.config), channelContext(`ops-${name}`, h.secrets));
  });
  afterAll(() => h.close());

  // Ids of letters and digits: Discord escapes Markdown characters such as `_` in the text.
  const question = (id: string) => channelQuestion({ id, recipient: h.recipient, text: `Ship ${id}?` });

  it('delivers to the fake, answers a signed CONFIRM, refuses a tampered one', async () => {
    const before = h.deliveries().length;
    await channel.deliver(question('qh1'), 'https://tai.example/api/interactions/callback/T');
    expect(h.deliveries()).toHaveLength(before + 1);
    const request = await h.confirm('qh1', true);
    const ev = await channel.inbound!(request);
    if (ev.kind !== 'answer') throw new Error(ev.kind);
    expect(ev.answer(question('qh1'))).toBe(true);
    expect(await channel.inbound!(h.tamper(request))).toMatchObject({ kind: 'reject', status: 401 });
  });

  it('a refused delivery throws; an edit after resolution reaches the fake', async () => {
    h.failNextDelivery();
    await expect(channel.deliver(question('qh2'), 'https://tai.example/cb')).rejects.toThrow(/HTTP 403/);
    const receipt = await channel.deliver(question('qh3'), 'https://tai.example/cb');
    await channel.onResolved!({ ...question('qh3'), status: 'TIMED_OUT' }, receipt);
    expect(JSON.stringify(await h.waitForEdit('Ship qh3?'))).toContain('Timed out');
  });
});
