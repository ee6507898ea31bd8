// What a plain start says before the inbox URL: one line naming every setting left at its
// start-time default, not one JSON warning each (five on a bare `serve`); `--verbose` says each
// in full. The real command, spawned from an empty folder with none of the runner's settings.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/fixtures.ts';

const BIN = fileURLToPath(new URL('../../bin/tai-interactions.mjs', import.meta.url));
const empty = mkdtempSync(path.join(os.tmpdir(), 'tai-start-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

const DEFAULTS = [
  'INTERACTIONS_PUBLIC_BASE_URL',
  'INTERACTIONS_REDIS_URL',
  'INTERACTIONS_RECEIPT_KEYS_FILE',
  'INTERACTIONS_VAPID_KEYS_FILE',
  'INTERACTIONS_MCP_STATE_KEY',
];

/** The start's output up to "the inbox is at", from `serve` with `extra` arguments. */
async function startOutput(extra: string[]): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(TAI_|INTERACTIONS_|PORT$|HOST$|LOG_LEVEL$)/.test(k)),
  );
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), ...extra], {
    cwd: empty,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    return await until(child, /the inbox is at /);
  } finally {
    child.kill('SIGTERM');
  }
}

function warnings(out: string): { msg: string; notSet?: string[] }[] {
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; notSet?: string[] })
    .filter((entry) => entry.level === 40);
}

describe('the start summary', () => {
  it('a plain start says the settings left at their defaults in one line', async () => {
    const found = warnings(await startOutput([]));
    expect(found).toHaveLength(1);
    expect(found[0]!.notSet).toEqual(DEFAULTS);
    expect(found[0]!.msg).toBe(
      `${DEFAULTS.join(', ')} are not set: this run uses start-time defaults (fine to try it out, not for a deployment); start with --verbose to see what each means, or run tai-interactions doctor`,
    );
  }, 60_000);

  it('--verbose says each in full, and no summary', async () => {
    const found = warnings(await startOutput(['--verbose']));
    expect(found.map((w) => w.msg.split(' ')[0])).toEqual(DEFAULTS);
    expect(found.every((w) => / is not set: .{40,}/.test(w.msg))).toBe(true);
    expect(found.some((w) => w.notSet)).toBe(false);
  }, 60_000);
});

function until(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (pattern.test(out)) resolve(out);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
}
