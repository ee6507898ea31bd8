// `channelDetails` (what `tai channels list` shows) names the public base URL as missing when it
// is unset and when it is only the loopback default, which nobody elsewhere can reach.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { type EngineSet, startEngines } from '../support/engines.ts';

const pager: ChannelPort = { names: () => new Set(['pager']), deliver: async () => ({}) };

describe('channelDetails and the public base URL', () => {
  let set: EngineSet | null = null;
  afterEach(async () => {
    await set?.close();
    set = null;
  });

  const detailsWith = async (settings: { publicBaseUrl: string | null; publicBaseUrlLocal?: boolean }) => {
    set = await startEngines('memory', 1, settings, { channels: pager });
    return set.engines[0]!.channelDetails().map((d) => ({ ready: d.ready, missing: d.missing }));
  };

  it('set: ready', async () => {
    expect(await detailsWith({ publicBaseUrl: 'https://tai.example' })).toEqual([
      { ready: true, missing: [] },
    ]);
  });

  it('the loopback default or unset: not ready, INTERACTIONS_PUBLIC_BASE_URL missing', async () => {
    const missing = [{ ready: false, missing: ['INTERACTIONS_PUBLIC_BASE_URL'] }];
    expect(await detailsWith({ publicBaseUrl: 'http://127.0.0.1:4000', publicBaseUrlLocal: true })).toEqual(
      missing,
    );
    await set?.close();
    expect(await detailsWith({ publicBaseUrl: null })).toEqual(missing);
  });
});
