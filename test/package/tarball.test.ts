// The package as a consumer gets it: build lib/, `npm pack`, then (1) install the tarball into an
// empty project, where plain `node` imports the SDK, plain `tsc` (node16 resolution) type-checks
// a consumer against the shipped .d.ts, and the `tai` bin runs; (2) unpack it and run a
// production install (`npm ci --omit=dev`, no compiler present) that serves requests.
// Installs use the npm cache first (`--prefer-offline`): what `npm ci` fetched is reused.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');

let tmp = '';
let tarball = '';
let consumer = '';
let production = '';

function npm(args: string[], cwd: string) {
  return run('npm', args, {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, npm_config_yes: 'false' },
  });
}

async function installConsumer(): Promise<void> {
  consumer = path.join(tmp, 'consumer');
  cpSync(path.join(REPO, 'test/package/consumer'), consumer, { recursive: true });
  await npm(['install', '--omit=dev', ...NPM_FLAGS, tarball], consumer);
}

async function installProduction(): Promise<void> {
  await run('tar', ['-xzf', tarball, '-C', tmp]);
  production = path.join(tmp, 'package');
  // The tarball carries no lockfile; the checkout's pins the same tree.
  cpSync(path.join(REPO, 'package-lock.json'), path.join(production, 'package-lock.json'));
  await npm(['ci', '--omit=dev', ...NPM_FLAGS], production);
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tai-package-'));
  // lib/ from the current sources (only this test reads lib/; dist/inbox is left as built).
  await run(process.execPath, ['scripts/build-server.mjs'], { cwd: REPO });
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], REPO);
  tarball = path.join(tmp, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  await Promise.all([installConsumer(), installProduction()]);
}, 600_000);

afterAll(async () => {
  // Two installed trees: removing them takes a while on a busy machine.
  if (tmp) await rm(tmp, { recursive: true, force: true });
}, 180_000);

describe('the packed package, installed into an empty project', () => {
  it('ships compiled JavaScript and declarations, not sources', () => {
    const pkg = path.join(consumer, 'node_modules/tai-interactions');
    expect(existsSync(path.join(pkg, 'lib/client/index.js'))).toBe(true);
    expect(existsSync(path.join(pkg, 'lib/client/index.d.ts'))).toBe(true);
    expect(existsSync(path.join(pkg, 'lib/channels/types.d.ts'))).toBe(true);
    expect(existsSync(path.join(pkg, 'src'))).toBe(false);
    // Nothing runs TypeScript at run time in an installed package.
    expect(existsSync(path.join(consumer, 'node_modules/tsx'))).toBe(false);
    expect(existsSync(path.join(consumer, 'node_modules/typescript'))).toBe(false);
  });

  it('plain node imports the client', async () => {
    const { stdout } = await run(process.execPath, ['import-client.mjs'], { cwd: consumer });
    const names = JSON.parse(stdout) as string[];
    expect(names).toEqual(
      expect.arrayContaining(['createInteractionsClient', 'TimedOutError', 'InteractionsError']),
    );
  });

  it('plain tsc (moduleResolution node16) type-checks a consumer, and refuses a wrong one', async () => {
    writeFileSync(path.join(consumer, 'tsconfig.json'), tsconfigFor(['consumer.ts']));
    await expect(run(process.execPath, [TSC, '-p', '.'], { cwd: consumer })).resolves.toBeDefined();
    // The declarations carry real types: a misuse is an error, not `any`.
    writeFileSync(path.join(consumer, 'tsconfig.json'), tsconfigFor(['misuse.ts']));
    const refused = await run(process.execPath, [TSC, '-p', '.'], { cwd: consumer }).catch(
      (err: { stdout: string }) => err.stdout,
    );
    expect(refused).toMatch(/misuse\.ts\(\d+,\d+\): error TS2322/);
  }, 180_000);

  it('the tai bin runs from the installed package', async () => {
    const { stdout } = await run(path.join(consumer, 'node_modules/.bin/tai'), ['--help'], { cwd: consumer });
    expect(stdout).toContain('serve');
    expect(stdout).toContain('ask');
  }, 60_000);
});

describe('a production install of the packed package', () => {
  it('has no compiler and serves the API and the inbox', async () => {
    expect(existsSync(path.join(production, 'node_modules/typescript'))).toBe(false);
    expect(existsSync(path.join(production, 'node_modules/vite'))).toBe(false);
    const port = await freePort();
    const child = spawn('npm', ['start'], {
      cwd: production,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', INTERACTIONS_REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    try {
      await listening(child);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/health`)).status).toBe(200);
      expect((await fetch(`${base}/ready`)).status).toBe(200);
      const inbox = await fetch(`${base}/`);
      expect(inbox.status).toBe(200);
      expect(await inbox.text()).toContain('<script');
    } finally {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    }
  }, 60_000);
});

function tsconfigFor(files: string[]): string {
  return JSON.stringify({
    compilerOptions: {
      module: 'node16',
      moduleResolution: 'node16',
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      // The consumer's own @types/node would live here; the checkout's serves without a download.
      typeRoots: [path.join(REPO, 'node_modules/@types')],
    },
    files,
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resolves on the server's "listening" log line; rejects if it exits first. */
function listening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('tai-interactions is listening')) resolve();
    });
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${out.slice(0, 2000)}`)));
  });
}
