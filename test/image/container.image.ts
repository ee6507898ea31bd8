// The container image (container/Containerfile), built here from Debian's packages and the npm
// registry (container/build.sh --local-base), started with a real Redis and used end to end:
// health and readiness, an SDK question answered through it (stored in that Redis), run as a
// non-root user under tini on a read-only root file system, its health check, and a clean stop.
// Where podman can start no container on this machine, build.sh assembles the same root file
// system and this test runs it under chroot; the run says which it did.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createInteractionsClient } from '../../src/client/index.ts';
import { freePort } from '../support/fixtures.ts';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string })
  .version;
const KEY = randomBytes(24).toString('base64url');
const PREFIX = `image-${randomBytes(4).toString('hex')}:`;
const NAME = `tai-image-test-${randomBytes(4).toString('hex')}`;

let mode: { kind: 'podman'; image: string; runtime: string } | { kind: 'chroot'; rootfs: string };
let server: ChildProcess;
let base = '';
let output = '';

/** podman as container/podman-env.sh sets it up (vfs, the runtime that works, this shell's limits). */
async function podman(args: string[]): Promise<{ stdout: string; stderr: string }> {
  if (mode.kind !== 'podman') throw new Error('not a podman run');
  return run('sh', ['-c', `. container/podman-env.sh; $PODMAN "$@"`, 'podman', ...args], { cwd: REPO });
}

function serverEnv(port: number): Record<string, string> {
  return {
    PORT: String(port),
    INTERACTIONS_REDIS_URL: inject('redisUrl'),
    INTERACTIONS_KEY_PREFIX: PREFIX,
    INTERACTIONS_API_KEYS: JSON.stringify([{ id: 'ops', key: KEY, roles: ['admin'] }]),
    INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  };
}

beforeAll(async () => {
  const built = await run('container/build.sh', ['--local-base'], {
    cwd: REPO,
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = built.stdout.trim().split('\n').at(-1) ?? '';
  const port = await freePort();
  const env = serverEnv(port);
  if (last.startsWith('chroot ')) {
    mode = { kind: 'chroot', rootfs: path.join(REPO, last.slice('chroot '.length)) };
    // The image's entry point, as the image's user, in the same root file system.
    server = spawn(
      'chroot',
      [
        '--userspec=10001:10001',
        mode.rootfs,
        // -s: a subreaper, as tini is not PID 1 outside a container.
        '/usr/bin/tini',
        '-s',
        '--',
        '/usr/local/bin/node',
        '/opt/tai-interactions/bin/tai-interactions.mjs',
        'serve',
      ],
      // PATH finds chroot here, and serves inside the root file system too.
      { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOST: '0.0.0.0', NODE_ENV: 'production', ...env } },
    );
  } else {
    const runtime = /podman build \((\w+)\)/.exec(built.stderr)?.[1] ?? 'crun';
    mode = { kind: 'podman', image: last, runtime };
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // Attached (no -d): the test reads the server's output as it comes, and a SIGTERM to
    // `podman run` stops the container.
    server = spawn(
      'sh',
      [
        '-c',
        '. container/podman-env.sh; name=$1; shift; exec $PODMAN --runtime "$0" run --rm --name "$name" --network host --read-only $ULIMITS "$@"',
        runtime,
        NAME,
        ...envArgs,
        last,
      ],
      { cwd: REPO },
    );
  }
  console.log(
    mode.kind === 'podman'
      ? `[image test] ran the image ${mode.image} with podman (${mode.runtime}, vfs, host network, read-only root)`
      : `[image test] podman cannot start a container here: ran the image's root file system under chroot (${mode.rootfs})`,
  );
  output = await outputUntil(server, /tai-interactions is listening/);
  base = `http://127.0.0.1:${port}`;
}, 1_800_000);

afterAll(async () => {
  if (mode?.kind === 'podman') await podman(['rm', '-f', NAME]).catch(() => undefined);
  else server?.kill('SIGKILL');
});

describe('the container image, with Redis', () => {
  it('serves /health and is ready on its Redis', async () => {
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok', version: VERSION });
    expect((await fetch(`${base}/ready`)).status).toBe(200);
    expect(output).toContain('"store":"redis"');
  });

  it('an agent asks through it, an operator answers, and the question lives in that Redis', async () => {
    const client = createInteractionsClient({ url: base, apiKey: KEY });
    let id = '';
    const asked = client.askUser(
      { text: 'Ship the image?', format: 'CONFIRM' },
      {
        onAsked: (q) => {
          id = q.id;
          void client.answer(q.id, true);
        },
      },
    );
    expect(await asked).toBe(true);
    const redis = new Redis(inject('redisUrl'));
    try {
      const keys = await redis.keys(`${PREFIX}*${id}*`);
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
    expect((await client.question(id))?.status).toBe('ANSWERED');
  });

  it('runs as a non-root user under tini, on a read-only root file system', async () => {
    if (mode.kind === 'podman') {
      const { stdout } = await podman(['exec', NAME, 'sh', '-c', 'id -u; tr "\\0" " " </proc/1/cmdline']);
      const [uid, pid1] = stdout.split('\n');
      expect(uid).toBe('10001');
      expect(pid1).toMatch(/^\/usr\/bin\/tini -- \/usr\/local\/bin\/node /);
      const write = await podman([
        'exec',
        NAME,
        'sh',
        '-c',
        'touch /opt/tai-interactions/x 2>&1; touch /x 2>&1',
      ]).catch((err: { stdout: string }) => err);
      expect(write.stdout).toMatch(/Read-only file system/);
      // podman's image inspect keeps the health check beside Config, not in it.
      const inspect = JSON.parse((await podman(['image', 'inspect', mode.image])).stdout) as {
        Config: { User: string; Entrypoint: string[] };
        Healthcheck?: { Test: string[] };
      }[];
      expect(inspect[0]!.Config.User).toBe('10001:10001');
      expect(inspect[0]!.Config.Entrypoint[0]).toBe('/usr/bin/tini');
      expect(inspect[0]!.Healthcheck?.Test.slice(0, 2)).toEqual(['CMD', '/usr/local/bin/node']);
    } else {
      const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
      expect(status).toMatch(/^Name:\s+tini$/m);
      expect(status).toMatch(/^Uid:\s+10001\s/m);
    }
  });

  it('its health check passes', async () => {
    if (mode.kind === 'podman') {
      await expect(podman(['healthcheck', 'run', NAME])).resolves.toBeDefined();
    } else {
      const check = await run('chroot', [
        '--userspec=10001:10001',
        mode.rootfs,
        '/usr/bin/env',
        `PORT=${new URL(base).port}`,
        '/usr/local/bin/node',
        '-e',
        "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))",
      ]);
      expect(check.stderr).toBe('');
    }
  });

  it('stops cleanly on SIGTERM (tini passes it on)', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    if (mode.kind === 'podman') await podman(['stop', '--time', '20', NAME]);
    else server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(tail).toContain('shutting down');
  });
});

/** Everything the server has printed so far. */
let tail = '';

/** Resolves with the output so far once it matches `pattern`; rejects if the process exits first. */
function outputUntil(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      tail = out;
      if (pattern.test(out)) resolve(out);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${out.slice(-3000)}`)));
    child.once('error', reject);
  });
}
