// Settings of API.md §2 and §22 judged at start, through the real server process: identity
// prefixes are reserved (an API key id or a channel name using one stops the server), and a
// groups file that does not parse or names a group twice (in itself or with the manifest) stops
// it too — one line naming the variable or the file and key path, exit 1.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest, ManifestError } from '../../src/app/manifest.ts';
import { parsePrincipals } from '../../src/auth/api-keys.ts';
import { RESERVED_IDENTITY_PREFIXES } from '../../src/domain/groups.ts';
import { manifestDir } from '../support/channel-server.ts';
import { freePort, runToExit } from '../support/processes.ts';

const KEY = 'k'.repeat(32);

async function start(env: Record<string, string>) {
  return runToExit({ PORT: String(await freePort()), HOST: '127.0.0.1', ...env });
}

describe('reserved identity prefixes and groups at start', () => {
  for (const id of ['oidc:alice', 'ONCALL-x']) {
    it(`an API key id "${id}" stops the server`, async () => {
      const r = await start({ INTERACTIONS_API_KEYS: JSON.stringify([{ id, key: KEY, roles: ['agent'] }]) });
      expect(r.code).toBe(1);
      const line = r.stderr.trim();
      expect(line.split('\n')).toHaveLength(1);
      expect(line).toContain('INTERACTIONS_API_KEYS');
      expect(line).toContain(`reserved identity prefix (${RESERVED_IDENTITY_PREFIXES.join(', ')})`);
      expect(line).not.toContain(KEY);
    });
  }

  it('every reserved prefix is refused as a key id, and a key id holding one further in is not', () => {
    // The parser the server starts with, without a process per prefix.
    for (const prefix of RESERVED_IDENTITY_PREFIXES) {
      for (const id of [prefix, `${prefix}:x`, `${prefix.toUpperCase()}-bot`]) {
        expect(() => parsePrincipals([{ id, key: KEY, roles: ['agent'] }]), id).toThrow(/reserved/);
      }
    }
    expect(parsePrincipals([{ id: 'team-mcp', key: KEY, roles: ['agent'] }])).toHaveLength(1);
  });

  it('every reserved prefix is refused as a channel name', async () => {
    for (const prefix of RESERVED_IDENTITY_PREFIXES) {
      const dir = manifestDir(`channels:\n  ${prefix}-x:\n    plugin: webhook\n`);
      const err = await loadManifest({ path: join(dir, 'interactions.yaml'), cwd: dir, env: {} }).catch(
        (e) => e,
      );
      expect(err).toBeInstanceOf(ManifestError);
      expect(String(err.message)).toContain(`channels.${prefix}-x: a channel name must not be`);
    }
  });

  for (const name of ['mcp-bridge']) {
    it(`a channel named "${name}" stops the server`, async () => {
      const dir = manifestDir(
        `channels:\n  ${name}:\n    plugin: webhook\n    config: { url: "https://hooks.example/x" }\n`,
      );
      const r = await start({ INTERACTIONS_MANIFEST: join(dir, 'interactions.yaml') });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `${join(dir, 'interactions.yaml')}: channels.${name}: a channel name must not be or begin with a reserved identity prefix (${RESERVED_IDENTITY_PREFIXES.join(', ')})`,
      );
    });
  }

  it('a groups file naming a group twice stops the server, naming the variable', async () => {
    const dir = manifestDir('');
    const file = join(dir, 'groups.yaml');
    writeFileSync(file, '- { id: payments, members: [alice] }\n- { id: payments, members: [bob] }\n');
    const r = await start({ INTERACTIONS_GROUPS_FILE: file });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('INTERACTIONS_GROUPS_FILE: groups[1].id: names group "payments" twice');
  });

  it('a groups file that does not parse stops the server', async () => {
    const dir = manifestDir('');
    const file = join(dir, 'groups.json');
    writeFileSync(file, '[{"id": "payments", "members": ["alice"]');
    const r = await start({ INTERACTIONS_GROUPS_FILE: file });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('INTERACTIONS_GROUPS_FILE: the file is neither valid JSON nor valid YAML');
  });

  it('a group named by both the file and the manifest stops the server', async () => {
    const dir = manifestDir('groups:\n  - { id: payments, members: [carol] }\n');
    const file = join(dir, 'groups.json');
    writeFileSync(file, JSON.stringify([{ id: 'payments', members: ['alice'] }]));
    const r = await start({
      INTERACTIONS_GROUPS_FILE: file,
      INTERACTIONS_MANIFEST: join(dir, 'interactions.yaml'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `failed to start: INTERACTIONS_GROUPS_FILE: with the manifest's groups: names group "payments" twice`,
    );
  });
});
