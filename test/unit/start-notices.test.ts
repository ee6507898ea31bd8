// What the server says at start about its public base URL: the loopback default it took, and
// each channel that cannot reach people without a usable one.
import { describe, expect, it } from 'vitest';
import { loadConfig, type ManifestSettings } from '../../src/app/config.ts';
import { baseUrlNotices } from '../../src/app/start-notices.ts';

const manifest = (channels: Record<string, string>) =>
  ({
    manifest: {
      channels: Object.fromEntries(Object.entries(channels).map(([n, plugin]) => [n, { plugin }])),
    },
  }) as unknown as ManifestSettings;

describe('baseUrlNotices', () => {
  it('on loopback with no base URL: one line for the default, one per channel', () => {
    const config = loadConfig({ HOST: '127.0.0.1', PORT: '4100' });
    expect(baseUrlNotices(config, manifest({ 'ops-slack': 'slack', sms: 'twilio' }))).toEqual([
      'INTERACTIONS_PUBLIC_BASE_URL is not set: callback URLs use http://127.0.0.1:4100, which only this machine can open; set it to an https:// origin that people and providers can reach',
      'channel ops-slack (slack): its links point at http://127.0.0.1:4100, which its recipients cannot reach; set INTERACTIONS_PUBLIC_BASE_URL',
      'channel sms (twilio): its links point at http://127.0.0.1:4100, which its recipients cannot reach; set INTERACTIONS_PUBLIC_BASE_URL',
    ]);
    expect(baseUrlNotices(config, undefined)).toHaveLength(1);
  });

  it('elsewhere with no base URL: each channel is said to be unusable', () => {
    const config = loadConfig({ HOST: '0.0.0.0' });
    expect(baseUrlNotices(config, manifest({ tg: 'telegram' }))).toEqual([
      'channel tg (telegram) cannot be used: INTERACTIONS_PUBLIC_BASE_URL is not set, so questions to it fail with NOT_CONFIGURED',
    ]);
    expect(baseUrlNotices(config, manifest({}))).toEqual([]);
  });

  it('with a base URL set: nothing to say', () => {
    const config = loadConfig({ INTERACTIONS_PUBLIC_BASE_URL: 'https://tai.example' });
    expect(baseUrlNotices(config, manifest({ tg: 'telegram' }))).toEqual([]);
  });
});
