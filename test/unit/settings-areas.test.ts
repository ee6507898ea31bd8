// The settings areas (src/app/settings/) composed by loadConfig: every variable belongs to one
// area, and every area's group reaches the Config.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/app/config.ts';
import type { SettingsArea } from '../../src/app/settings/fields.ts';
import { keySettings } from '../../src/app/settings/keys.ts';
import { limitSettings } from '../../src/app/settings/limits.ts';
import { otelSettings } from '../../src/app/settings/otel.ts';
import { serverSettings } from '../../src/app/settings/server.ts';
import { storeSettings } from '../../src/app/settings/store.ts';

const AREAS = { serverSettings, storeSettings, limitSettings, keySettings, otelSettings };

/** An area's group read alone from an empty environment. */
function defaultsOf<S extends z.ZodRawShape, G extends object>(area: SettingsArea<S, G>): G {
  return area.read(z.object(area.env).parse({}), { env: {}, readFile: () => '', ownSettings: new Set() });
}

describe('settings areas', () => {
  it('declare each variable once (a second declaration would silently replace the first)', () => {
    const owner = new Map<string, string>();
    const twice: string[] = [];
    for (const [area, { env }] of Object.entries(AREAS)) {
      for (const name of Object.keys(env)) {
        if (owner.has(name)) twice.push(`${name} (${owner.get(name)} and ${area})`);
        owner.set(name, area);
      }
    }
    expect(twice).toEqual([]);
    expect(owner.size).toBeGreaterThan(25);
  });

  it('refuse a verifier secret named after any area’s variable', () => {
    for (const { env } of Object.values(AREAS)) {
      for (const name of Object.keys(env)) {
        expect(() => loadConfig({ INTERACTIONS_VERIFIER_SECRETS: `HOOK,${name}` })).toThrow(
          `INTERACTIONS_VERIFIER_SECRETS: ${name} is one of the server's own settings, not a verifier secret`,
        );
      }
    }
  });

  it('each put their whole group into the Config', () => {
    const config: Record<string, unknown> = { ...loadConfig({}) };
    // The defaults, read by each area alone, are what loadConfig returns for its fields.
    const groups = [
      defaultsOf(serverSettings),
      defaultsOf(storeSettings),
      defaultsOf(limitSettings),
      defaultsOf(keySettings),
    ];
    for (const group of groups) {
      for (const [field, value] of Object.entries(group)) {
        if (typeof value === 'function') expect(config[field]).toBeTypeOf('function');
        else expect(config[field]).toEqual(value);
      }
    }
  });
});
