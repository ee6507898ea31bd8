// The evidence bundle carries the configured groups (API.md §24.3, §22): who could answer a
// question addressed to a group or a rotation is part of the record an auditor is handed. The
// file is listed in the signed manifest, so the bundle still verifies; a server with no groups
// writes no groups.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli-run.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';
import { unzip } from '../support/zip.ts';

const dir = mkdtempSync(join(tmpdir(), 'tai-evidence-groups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the evidence bundle with groups', () => {
  let t: TestServer;
  beforeAll(async () => {
    const file = join(dir, 'groups.json');
    writeFileSync(file, JSON.stringify([{ id: 'payments', members: ['ops', 'oidc:ada'] }]));
    t = await startServer({ store: 'memory', env: { INTERACTIONS_GROUPS_FILE: file } });
  });
  afterAll(() => t?.close());

  it('holds groups.json, listed in the signed manifest, and verifies whole', async () => {
    const r = await t.server.inject({
      method: 'GET',
      url: '/api/interactions/audit/evidence',
      headers: auth('admin'),
    });
    expect(r.statusCode).toBe(200);
    const bundle = join(dir, 'bundle.zip');
    writeFileSync(bundle, r.rawPayload);
    const files = await unzip(bundle);
    expect(JSON.parse(files.get('groups.json')!.toString('utf8'))).toEqual({
      groups: [{ id: 'payments', members: ['ops', 'oidc:ada'], rotation: null }],
    });
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    expect(JSON.stringify(manifest)).toContain('groups.json');
    const url = await t.listen();
    const verified = await runCliInProcess(['audit', 'verify', bundle], { env: { TAI_URL: url } });
    expect(verified).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('the evidence bundle without groups', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
  });
  afterAll(() => t?.close());

  it('writes no groups.json', async () => {
    const r = await t.server.inject({
      method: 'GET',
      url: '/api/interactions/audit/evidence',
      headers: auth('admin'),
    });
    const bundle = join(dir, 'none.zip');
    writeFileSync(bundle, r.rawPayload);
    expect((await unzip(bundle)).has('groups.json')).toBe(false);
  });
});
