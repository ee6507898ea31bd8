// Child processes the benchmark starts (redis-server, server instances, floor servers): each
// is tracked by its pid and killed when the run ends, however it ends. Nothing else is touched.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './pool.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const running = new Set<ChildProcess>();

export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<number | null>;
  isRunning(): boolean;
  /** The last 64 KiB the process printed, for error messages and warnings. */
  output(): string;
  stop(): Promise<void>;
}

// Settings of the parent shell must not leak into a measured server: each run sets its own.
const INHERITED_NOT = /^(INTERACTIONS_|ACCESS_CONTROL_|PORT$|HOST$|LOG_LEVEL$|NODE_ENV$|NODE_OPTIONS$)/;

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !INHERITED_NOT.test(k)));
  return { ...base, ...env };
}

export function startChild(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
): Child {
  const proc = spawn(command, args, {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (proc.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  running.add(proc);
  // Enough for a whole run of a quiet (LOG_LEVEL=warn) server, so an early warning stays visible.
  let tail = '';
  const keep = (d: Buffer): void => {
    tail = (tail + d.toString()).slice(-65_536);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  let alive = true;
  const exited = new Promise<number | null>((resolve) => {
    proc.once('exit', (code) => {
      alive = false;
      running.delete(proc);
      resolve(code);
    });
    proc.once('error', () => {
      alive = false;
      running.delete(proc);
      resolve(null);
    });
  });
  return {
    name,
    pid: proc.pid,
    exited,
    isRunning: () => alive,
    output: () => tail,
    async stop() {
      if (!alive) return;
      proc.kill('SIGTERM');
      const code = await Promise.race([exited, sleep(5000).then(() => 'late' as const)]);
      if (code === 'late') {
        proc.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** A Node child running a TypeScript file through tsx, as `npm start` does (plus any flags). */
export function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): Child {
  // tsx first: a flag may preload another TypeScript file.
  return startChild(name, process.execPath, ['--import', 'tsx', ...nodeFlags, script], env);
}

/** Last resort on exit or interrupt: kill what is still running, by pid. */
export function killAllChildren(): void {
  for (const proc of running) proc.kill('SIGKILL');
  running.clear();
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process in KiB, from /proc/<pid>/status (VmRSS). */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** The soft limit on open files of this process (children inherit it). */
export function openFilesLimit(): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !m || m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
}

function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
  });
}

/** Waits until GET `url` answers 200; fails early if the child dies. */
export async function waitHealthy(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!child.isRunning())
      throw new Error(`${child.name} exited during start:\n${child.output().slice(-2000)}`);
    if ((await getStatus(url)) === 200) return;
    await sleep(100);
  }
  throw new Error(`${child.name} not healthy after ${timeoutMs} ms:\n${child.output().slice(-2000)}`);
}
