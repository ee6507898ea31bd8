// The settings page's address: `#settings` alone or beside other fragment parameters.
import { describe, expect, it } from 'vitest';
import { isSettingsHash, withSettings } from '../../src/inbox/lib/settings-route.ts';

describe('the settings page address', () => {
  it('is read from the fragment, alone or with other parameters', () => {
    expect(isSettingsHash('#settings')).toBe(true);
    expect(isSettingsHash('#view=x&settings')).toBe(true);
    expect(isSettingsHash('settings')).toBe(true);
    expect(isSettingsHash('')).toBe(false);
    expect(isSettingsHash('#')).toBe(false);
    expect(isSettingsHash('#settingsx')).toBe(false);
    expect(isSettingsHash('#settings=1')).toBe(false);
  });

  it('is added once and removed, other parameters kept', () => {
    expect(withSettings('', true)).toBe('settings');
    expect(withSettings('#settings', true)).toBe('settings');
    expect(withSettings('#view=x', true)).toBe('view=x&settings');
    expect(withSettings('#view=x&settings', false)).toBe('view=x');
    expect(withSettings('#settings', false)).toBe('');
    expect(withSettings('#&&settings&', false)).toBe('');
  });
});
