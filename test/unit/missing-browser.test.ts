// A run that includes the inbox's browser tests, on a machine without Chromium, stops before any
// test with one line saying how to get it (test/support/global-setup.ts); a run without them is
// not held up. Each case runs vitest itself, in a child process, with CHROMIUM_PATH naming nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes.ts';

const NOWHERE = '/nonexistent/chromium-for-tests';
const reports = mkdtempSync(path.join(tmpdir(), 'tai-missing-browser-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** `vitest run <files>` in a child, its own report file, without this run's VITEST_* variables. */
function vitest(files: string[]): Promise<{ code: number; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  const args = [
    path.join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    ...files,
    '--reporter=default',
    `--outputFile=${path.join(reports, `${files.length}-${Date.now()}.json`)}`,
  ];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: REPO_ROOT, env: { ...env, CHROMIUM_PATH: NOWHERE, NO_COLOR: '1' } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, output: stdout + stderr }),
    );
  });
}

describe('a missing browser', () => {
  it('stops a run with browser tests at its start, in one line with the way out', async () => {
    const r = await vitest(['test/e2e/inbox.test.ts']);
    expect(r.code).toBe(1);
    const lines = r.output.split('\n').filter((l) => l.includes(NOWHERE));
    expect(lines).toEqual([
      `[test setup] no Chromium at ${NOWHERE}: the inbox's browser tests (test/e2e/) need one; install it (Debian/Ubuntu: apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary`,
    ]);
    // Before any test, the private Redis included: nothing ran, nothing else was said.
    expect(r.output).not.toMatch(/redis-server on|Test Files|\n\s+at /);
  }, 60_000);

  it('does not hold up a run without browser tests', async () => {
    const r = await vitest(['test/unit/values.test.ts']);
    expect(r.output).not.toContain(NOWHERE);
    expect(r.output).toMatch(/Test Files\s+1 passed/);
    expect(r.code).toBe(0);
  }, 60_000);
});
