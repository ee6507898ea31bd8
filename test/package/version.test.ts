// One version everywhere: package.json's is what `tai-interactions --version` prints, what
// /health and the MCP server info say, what the schema's description names (so the committed
// schema/schema.graphql too), and CHANGELOG.md has a section for it. A bump that misses one fails.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/domain/version.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, startServer } from '../support/server.ts';

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const PACKAGE_VERSION = (JSON.parse(read('package.json')) as { version: string }).version;

describe('the version', () => {
  it('is package.json’s, and the lockfile’s root says the same', () => {
    expect(VERSION).toBe(PACKAGE_VERSION);
    const lock = JSON.parse(read('package-lock.json')) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect(lock.version).toBe(PACKAGE_VERSION);
    expect(lock.packages['']?.version).toBe(PACKAGE_VERSION);
  });

  it('is what --version prints', async () => {
    const r = await runCliInProcess(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
  });

  it('is in /health, in the schema description (served and committed) and in the MCP server info', async () => {
    const t = await startServer({ store: 'memory' });
    try {
      const health = await t.server.inject({ method: 'GET', url: '/health' });
      expect(health.json()).toEqual({ status: 'ok', version: PACKAGE_VERSION });
      const intro = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${KEYS.agent}`, 'content-type': 'application/json' },
        payload: { query: '{ __schema { description } }' },
      });
      expect(
        (intro.json() as { data: { __schema: { description: string } } }).data.__schema.description,
      ).toContain(`tai-interactions ${PACKAGE_VERSION}:`);
      expect(read('schema/schema.graphql')).toContain(`tai-interactions ${PACKAGE_VERSION}:`);
    } finally {
      await t.close();
    }
    expect(read('src/mcp/tools.ts')).toMatch(
      /SERVER_INFO = \{ name: 'tai-interactions', version: VERSION \}/,
    );
  });

  it('has its section in CHANGELOG.md', () => {
    expect(read('CHANGELOG.md')).toMatch(
      new RegExp(`^## \\[${PACKAGE_VERSION.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'),
    );
  });
});
