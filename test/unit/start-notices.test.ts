// What the server says at start about its public base URL: the loopback default it took, and
// each channel that cannot reach people without a usable one.
import { describe, expect, it } from 'vitest';
import { loadConfig, type ManifestSettings } from '../../src/app/config.ts';
import { baseUrlNotices, holdStartWarnings, notSetSummary } from '../../src/app/start-notices.ts';

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

describe('holdStartWarnings', () => {
  const recorder = () => {
    const lines: unknown[][] = [];
    return { lines, logger: { warn: (...a: unknown[]) => lines.push(a), level: 'info' } };
  };

  it('keeps back "is not set" warnings until release, passes the others at once, then says one line', () => {
    const r = recorder();
    const held = holdStartWarnings(r.logger, false);
    held.logger.warn('A_SETTING is not set: what that means');
    held.logger.warn({ kid: 'k1' }, 'B_FILE is not set: what that means');
    held.logger.warn('A_SETTING is not set: said twice');
    held.logger.warn('channel x (slack) cannot be used: something');
    expect(held.logger.level).toBe('info');
    expect(r.lines).toEqual([['channel x (slack) cannot be used: something']]);
    held.release();
    expect(r.lines[1]).toEqual([{ notSet: ['A_SETTING', 'B_FILE'] }, notSetSummary(['A_SETTING', 'B_FILE'])]);
    held.logger.warn('C_KEY is not set: after the start');
    held.release();
    expect(r.lines).toHaveLength(3);
    expect(r.lines[2]).toEqual(['C_KEY is not set: after the start']);
  });

  it('verbose: every warning passes in full, and release says nothing', () => {
    const r = recorder();
    const held = holdStartWarnings(r.logger, true);
    held.logger.warn('A_SETTING is not set: what that means');
    held.release();
    expect(r.lines).toEqual([['A_SETTING is not set: what that means']]);
  });

  it('one setting is "is not set"', () => {
    expect(notSetSummary(['A'])).toMatch(/^A is not set: this run uses start-time defaults/);
  });
});
