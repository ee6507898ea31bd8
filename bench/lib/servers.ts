// The processes a figure measures: interaction server instances (`src/app/main.ts`, exactly what
// `npm start` runs) and the floor servers in bench/servers/. Each is its own process, so its
// RSS is its own and the benchmark client does not share its event loop.
import { randomBytes } from 'node:crypto';
import { PRINCIPALS } from './graphql.ts';
import { sleep } from './pool.ts';
import { type Child, freePort, startNode, waitHealthy } from './process.ts';
import { runSecretsEnv } from './run-secrets.ts';

export interface Instance {
  name: string;
  url: string;
  pid: number;
  /** The last 64 KiB the process printed (warnings land here). */
  output(): string;
  stop(): Promise<void>;
}

export function uniquePrefix(figure: string): string {
  return `bench-${figure}-${randomBytes(4).toString('hex')}:`;
}

/** Starts `script` on `port` and waits for GET /health. */
async function launch(
  name: string,
  script: string,
  port: number,
  env: Record<string, string>,
  nodeFlags: string[] = [],
) {
  const url = `http://127.0.0.1:${port}`;
  const child: Child = startNode(name, script, { ...env, PORT: String(port), HOST: '127.0.0.1' }, nodeFlags);
  try {
    await waitHealthy(child, `${url}/health`);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { name, url, pid: child.pid, output: () => child.output(), stop: () => child.stop() };
}

export interface InstanceOptions {
  name: string;
  redisUrl: string;
  /** Instances that share a prefix share their questions (scaled out on one Redis). */
  prefix: string;
  env?: Record<string, string>;
  /** Preload bench/servers/gc-on-signal.ts, so collectGarbage() works on this instance. */
  gcOnSignal?: boolean;
  /** More Node flags (profiles: --heapsnapshot-signal, --heap-prof). */
  nodeFlags?: string[];
}

/**
 * BENCH_CPU_PROF_DIR=<dir> (bench only): every instance runs with --cpu-prof and writes its profiles
 * into <dir>/<name>/ when it stops (one per thread: the largest is the main thread's; tsx's
 * loader runs in a worker), for reading where a figure's time goes.
 */
function profileFlags(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}/${name}`] : [];
}

/**
 * BENCH_SERVER_SCRIPT=<path> (bench only): start instances from another copy of the server, e.g.
 * `git archive main src package.json | tar -x -C .tmp/base` and `.tmp/base/src/app/main.ts`, for
 * alternated before/after runs on the same benchmark code.
 */
export async function startInstance(o: InstanceOptions): Promise<Instance> {
  // The port is chosen here because the callback origin must name it before start.
  const port = await freePort();
  const flags = [
    ...(o.gcOnSignal ? ['--expose-gc', '--import', './bench/servers/gc-on-signal.ts'] : []),
    ...(o.nodeFlags ?? []),
    ...profileFlags(o.name),
  ];
  // BENCH_CPU_PROFILE_DIR: a profile of the figure's load only (started and stopped by signal).
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  if (profileDir) flags.push('--import', './bench/servers/cpu-profile-on-signal.ts');
  return launch(
    o.name,
    process.env.BENCH_SERVER_SCRIPT ?? 'src/app/main.ts',
    port,
    {
      INTERACTIONS_REDIS_URL: o.redisUrl,
      INTERACTIONS_KEY_PREFIX: o.prefix,
      INTERACTIONS_API_KEYS: PRINCIPALS,
      INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      // The pending caps are not what is measured: keep them out of the way of 10,000 holds.
      INTERACTIONS_MAX_PENDING: '1000000',
      INTERACTIONS_MAX_PENDING_PER_PRINCIPAL: '1000000',
      LOG_LEVEL: 'warn',
      // Shared keys, so an instance does not make its own at start and warn that it did.
      ...(await runSecretsEnv()),
      ...(profileDir ? { BENCH_CPU_PROFILE_DIR: profileDir, BENCH_CPU_PROFILE_NAME: o.name } : {}),
      ...o.env,
    },
    flags,
  );
}

/** What an instance started with gcOnSignal printed after its last full GC (bytes). */
export interface GcMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/**
 * A full garbage collection in an instance started with gcOnSignal, given time to finish;
 * returns the memory it printed afterwards (null if that line did not arrive).
 */
export async function collectGarbage(instance: Instance): Promise<GcMemory | null> {
  const last = (): (GcMemory & { collections: number }) | null => {
    const parts = instance.output().split('gc-memory ');
    return parts.length < 2 ? null : JSON.parse(parts[parts.length - 1]!.split('\n')[0]!);
  };
  const before = last()?.collections ?? 0;
  process.kill(instance.pid, 'SIGUSR2');
  // A full collection of a large heap on a busy machine can take seconds: wait for its line.
  await sleep(1500);
  for (let waited = 0; (last()?.collections ?? 0) === before && waited < 15_000; waited += 250)
    await sleep(250);
  const after = last();
  if (!after || after.collections === before) return null;
  const { collections: _, ...memory } = after;
  return memory;
}

/**
 * Runs `load` with the instance's CPU profiler on when BENCH_CPU_PROFILE_DIR is set (a profiling
 * run: see bench/servers/cpu-profile-on-signal.ts); otherwise just runs it.
 */
export async function profiled<T>(instance: Instance, load: () => Promise<T>): Promise<T> {
  if (!process.env.BENCH_CPU_PROFILE_DIR) return load();
  process.kill(instance.pid, 'SIGWINCH');
  await sleep(200);
  try {
    return await load();
  } finally {
    process.kill(instance.pid, 'SIGWINCH');
    await sleep(1000);
  }
}

/** A floor server from bench/servers/ (it listens on PORT and answers GET /health). */
export async function startFloorServer(
  name: string,
  script: string,
  env: Record<string, string> = {},
  gcOnSignal = false,
  nodeFlags: string[] = [],
): Promise<Instance> {
  const flags = gcOnSignal ? ['--expose-gc', '--import', './bench/servers/gc-on-signal.ts'] : [];
  return launch(name, `bench/servers/${script}`, await freePort(), env, [...flags, ...nodeFlags]);
}

/** Lines a process printed that look like trouble (Node warnings, errors, pino warn and above). */
export function troubleLines(instance: Instance): string[] {
  const trouble = /Warning|Error|"level":(40|50|60)/;
  const lines = instance
    .output()
    .split('\n')
    .filter((line) => trouble.test(line));
  return [...new Set(lines.map((line) => `${instance.name}: ${line.trim().slice(0, 300)}`))].slice(0, 5);
}
