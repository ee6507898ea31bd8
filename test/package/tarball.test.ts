// The package as a person gets it. Built once per run from a copy of the checkout, packed
// (test/package/packed.ts; .ci/node-lines packs once for its Node 22 and 24 runs), and
// served by a loopback registry as a published version (test/support/local-registry.ts). Then,
// in empty folders with nothing of the repository: (1) `npm install -g --prefix <tmp>
// tai-interactions` and the installed `tai-interactions` runs `--version`, `serve` (health, the
// inbox), `mcp` against that server and `doctor`; (2) `npm install tai-interactions` as a
// project dependency prints no EBADENGINE on this Node, installs the locked tree, and plain
// `node` and plain `tsc` (node16 resolution) use the SDK and its declarations, and plain `node`
// loads the framework adapters with none of the frameworks installed; (3) the README's
// five-minute start (five-minute-start.ts). No install warns about engines or install scripts.
// Installs use the npm cache first (`--prefer-offline`): what `npm ci` fetched is reused, and
// with the shrinkwrap npm needs no registry metadata but ours.
import { execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../support/fixtures.ts';
import { type LocalRegistry, startLocalRegistry } from '../support/local-registry.ts';
import { fiveMinuteStart, outputUntil } from './five-minute-start.ts';
import { packedTarball, REPO } from './packed.ts';

const run = promisify(execFile);
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'];
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string })
  .version;

let tmp = '';
let registry: LocalRegistry | null = null;
let globalBin = '';
let consumer = '';
let consumerLog = '';
let globalLog = '';
let empty = '';

/** The environment of a person's shell: none of the test runner's settings for the server. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(TAI_|INTERACTIONS_|PORT$|HOST$|ACCESS_CONTROL_ENABLE$|npm_)/i.test(k),
    ),
  );
  return { ...base, npm_config_yes: 'false', ...extra };
}

function npm(args: string[], cwd: string) {
  return run('npm', args, { cwd, maxBuffer: 16 * 1024 * 1024, env: cleanEnv() });
}

async function installGlobally(): Promise<void> {
  const prefix = path.join(tmp, 'global');
  const { stdout, stderr } = await npm(
    ['install', '-g', '--prefix', prefix, `--registry=${registry!.url}`, ...NPM_FLAGS, 'tai-interactions'],
    empty,
  );
  globalLog = stdout + stderr;
  globalBin = path.join(prefix, 'bin');
}

async function installAsDependency(): Promise<void> {
  consumer = path.join(tmp, 'consumer');
  cpSync(path.join(REPO, 'test/package/consumer'), consumer, { recursive: true });
  const { stdout, stderr } = await npm(
    ['install', `--registry=${registry!.url}`, ...NPM_FLAGS, `tai-interactions@${VERSION}`],
    consumer,
  );
  consumerLog = stdout + stderr;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tai-package-'));
  empty = path.join(tmp, 'empty');
  mkdirSync(empty);
  registry = await startLocalRegistry(await packedTarball(tmp));
  await Promise.all([installGlobally(), installAsDependency()]);
}, 900_000);

afterAll(async () => {
  await registry?.close();
  // Two installed trees: removing them takes a while on a busy machine.
  if (tmp) await rm(tmp, { recursive: true, force: true });
}, 180_000);

describe('the package installed as a project dependency', () => {
  it('prints no EBADENGINE on this Node and installs the tree npm-shrinkwrap.json locks', () => {
    expect(consumerLog).not.toMatch(/EBADENGINE/);
    expect(globalLog).not.toMatch(/EBADENGINE/);
    // The Node-20 pins reach the consumer: every copy of the helper is the locked release.
    const pkg = path.join(consumer, 'node_modules/tai-interactions');
    const lock = JSON.parse(readFileSync(path.join(pkg, 'npm-shrinkwrap.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const locked = lock.packages['node_modules/@whatwg-node/promise-helpers']?.version;
    expect(locked).toBeDefined();
    const found = findPackages(path.join(consumer, 'node_modules'), '@whatwg-node/promise-helpers');
    expect(found.length).toBeGreaterThan(0);
    for (const version of found) expect(version).toBe(locked);
  });

  it('ships a package.json without the clone-only prepare script and devDependencies; no install warns about scripts', () => {
    const pkg = JSON.parse(
      readFileSync(path.join(consumer, 'node_modules/tai-interactions/package.json'), 'utf8'),
    ) as { scripts?: Record<string, string>; devDependencies?: unknown };
    expect(pkg.scripts?.prepare).toBeUndefined();
    // The shipped shrinkwrap has no devDependencies; neither has the manifest (npm ci agrees).
    expect(pkg.devDependencies).toBeUndefined();
    expect(pkg.scripts?.build).toBeDefined();
    expect(consumerLog).not.toMatch(/install-scripts|prepare/);
    expect(globalLog).not.toMatch(/install-scripts|prepare/);
  });

  it('ships compiled JavaScript and declarations, not sources', () => {
    const pkg = path.join(consumer, 'node_modules/tai-interactions');
    expect(existsSync(path.join(pkg, 'lib/client/index.js'))).toBe(true);
    expect(existsSync(path.join(pkg, 'lib/client/index.d.ts'))).toBe(true);
    expect(existsSync(path.join(pkg, 'lib/channels/types.d.ts'))).toBe(true);
    expect(existsSync(path.join(pkg, 'lib/client/adapters/openai.d.ts'))).toBe(true);
    expect(existsSync(path.join(pkg, 'lib/client/adapters/ai-sdk.js'))).toBe(true);
    expect(existsSync(path.join(pkg, 'examples/tai-interactions.service'))).toBe(true);
    expect(existsSync(path.join(pkg, 'src'))).toBe(false);
    // Nothing runs TypeScript at run time in an installed package.
    expect(findPackages(path.join(consumer, 'node_modules'), 'tsx')).toEqual([]);
    expect(findPackages(path.join(consumer, 'node_modules'), 'typescript')).toEqual([]);
  });

  it('plain node imports the client', async () => {
    const { stdout } = await run(process.execPath, ['import-client.mjs'], { cwd: consumer });
    const names = JSON.parse(stdout) as string[];
    expect(names).toEqual(
      expect.arrayContaining(['createInteractionsClient', 'TimedOutError', 'InteractionsError']),
    );
  });

  it('plain node imports the framework adapters, and none of the frameworks is installed with the package', async () => {
    const { stdout } = await run(process.execPath, ['import-adapters.mjs'], { cwd: consumer });
    expect(JSON.parse(stdout)).toEqual({
      openai: ['createAgentsApprovals', 'createResponsesApprovals', 'mcpApprovalResponseOf'],
      aiSdk: ['createToolApprovals', 'toolApprovalResponseOf'],
    });
    for (const name of ['openai', '@openai/agents', 'ai']) {
      expect(findPackages(path.join(consumer, 'node_modules'), name)).toEqual([]);
    }
  });

  it('plain tsc (moduleResolution node16) type-checks a consumer, and refuses a wrong one', async () => {
    // One compiler run over both files (a run costs minutes on a busy machine): the good one
    // compiles clean, and the misuse is an error, not `any`, so the declarations carry types.
    writeFileSync(path.join(consumer, 'tsconfig.json'), tsconfigFor(['consumer.ts', 'misuse.ts']));
    const out = await run(process.execPath, [TSC, '-p', '.'], { cwd: consumer }).then(
      (ok) => ok.stdout,
      (err: { stdout: string }) => err.stdout,
    );
    const errors = out.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((line) => !line.startsWith('misuse.ts('))).toEqual([]);
    expect(out).toMatch(/misuse\.ts\(\d+,\d+\): error TS2322/);
  }, 300_000);

  it('both names of the command run from the project', async () => {
    const bin = path.join(consumer, 'node_modules/.bin');
    const primary = await run(path.join(bin, 'tai-interactions'), ['--help'], { cwd: consumer });
    expect(primary.stdout).toContain('Usage: tai-interactions');
    expect(primary.stdout).toContain('doctor');
    const second = await run(path.join(bin, 'tai'), ['--version'], { cwd: consumer });
    expect(second.stdout.trim()).toBe(VERSION);
  }, 60_000);
});

fiveMinuteStart({ registryUrl: () => registry!.url, tmp: () => tmp, npmFlags: NPM_FLAGS, cleanEnv });

describe('the package installed globally, run from an empty folder', () => {
  const bin = (): string => path.join(globalBin, 'tai-interactions');

  it('prints its version', async () => {
    const { stdout } = await run(bin(), ['--version'], { cwd: empty, env: cleanEnv() });
    expect(stdout.trim()).toBe(VERSION);
  });

  it('serves the API and the inbox, and its mcp command lists the tools against it', async () => {
    const port = await freePort();
    const child = spawn(bin(), ['serve', '--port', String(port), '--host', '127.0.0.1'], {
      cwd: empty,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    try {
      const out = await outputUntil(child, /the inbox is at (\S+)/);
      const base = `http://127.0.0.1:${port}`;
      expect(out).toContain(`the inbox is at ${base}/`);
      const health = await fetch(`${base}/health`);
      expect(await health.json()).toEqual({ status: 'ok', version: VERSION });
      const inbox = await fetch(`${base}/`);
      expect(inbox.status).toBe(200);
      expect(await inbox.text()).toContain('<script');

      const key = /API key: (\S+)/.exec(out)?.[1];
      expect(key).toBeDefined();
      const client = new Client({ name: 'tai-package-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: bin(),
          args: ['mcp'],
          env: { PATH: process.env.PATH ?? '', TAI_URL: base, TAI_API_KEY: key! },
          cwd: empty,
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['ask_user', 'await_answer']));
      } finally {
        await client.close();
      }
    } finally {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    }
  }, 60_000);

  it('doctor exits non-zero when Redis cannot be reached', async () => {
    const closed = await freePort();
    const r = await run(bin(), ['doctor', '--timeout', '3'], {
      cwd: empty,
      env: cleanEnv({ INTERACTIONS_REDIS_URL: `redis://127.0.0.1:${closed}` }),
    }).then(
      (ok) => ({ code: 0, stdout: ok.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(`^FAIL  redis: cannot reach Redis at 127\\.0\\.0\\.1:${closed}`, 'm'),
    );
  }, 30_000);

  it('doctor exits 0 with a reachable Redis, and says its version', async () => {
    const url = inject('redisUrl');
    const r = await run(bin(), ['doctor', '--timeout', '3'], {
      cwd: empty,
      env: cleanEnv({ INTERACTIONS_REDIS_URL: url }),
    });
    expect(r.stdout).toMatch(/^ok {4}redis: reachable at 127\.0\.0\.1:\d+, Redis \d+\.\d+/m);
    expect(r.stdout).not.toMatch(/^FAIL/m);
  }, 30_000);
});

/** Versions of every installed copy of `name` under `nodeModules` (nested ones included). */
function findPackages(nodeModules: string, name: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    const own = path.join(dir, name, 'package.json');
    if (existsSync(own)) found.push((JSON.parse(readFileSync(own, 'utf8')) as { version: string }).version);
    for (const entry of readdirSync(dir)) {
      const scoped = entry.startsWith('@')
        ? readdirSync(path.join(dir, entry)).map((e) => `${entry}/${e}`)
        : [entry];
      for (const pkg of scoped) walk(path.join(dir, pkg, 'node_modules'));
    }
  };
  walk(nodeModules);
  return found;
}

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
