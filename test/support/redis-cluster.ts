// Local Redis deployments for the Cluster and Sentinel tests: processes on free loopback
// ports, each in its own temporary directory, stopped and removed by the returned stop().
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './fixtures.ts';

const run = promisify(execFile);

export interface RedisProcess {
  port: number;
  proc: ChildProcess;
  /** SIGKILL: the process dies without a chance to hand over. */
  kill(): Promise<void>;
}

function waitFor(proc: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (out.includes(text)) {
        proc.stdout?.off('data', onData);
        resolve();
      }
    };
    proc.stdout?.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`redis exited early (${code}): ${out.slice(-500)}`)));
    proc.once('error', reject);
  });
}

async function stopProcess(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill(signal);
  await exited;
}

/** Starts redis-server (or, with a config file, a sentinel) with the given arguments. */
async function startProcess(dir: string, args: string[], readyText: string): Promise<RedisProcess> {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    [
      ...args,
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  proc.stdout?.resume();
  await waitFor(proc, readyText);
  return { port, proc, kill: () => stopProcess(proc, 'SIGKILL') };
}

export interface LocalDeployment {
  stop(): Promise<void>;
}

export interface LocalCluster extends LocalDeployment {
  nodes: { host: string; port: number }[];
}

/** Three primaries, no replicas, slots spread by redis-cli --cluster create. */
export async function startRedisCluster(): Promise<LocalCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tai-test-cluster-'));
  const procs: RedisProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(procs.map((p) => stopProcess(p.proc, 'SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      // The bus port defaults to port + 10000, past 65535 for a free port above 55535 (a
      // third of the ephemeral range): name a free one instead (Redis 7's cluster-port).
      const bus = await freePort();
      const args = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${i}.conf`,
        '--cluster-port',
        String(bus),
      ];
      procs.push(
        await startProcess(dir, [...args, '--dbfilename', `d${i}.rdb`], 'Ready to accept connections'),
      );
    }
    const addrs = procs.map((p) => `127.0.0.1:${p.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addrs, '--cluster-yes']);
    // create returns once slots are assigned; wait until every node agrees the cluster is ok.
    const until = Date.now() + 15_000;
    for (const p of procs) {
      for (;;) {
        const { stdout } = await run('redis-cli', ['-p', String(p.port), 'cluster', 'info']);
        if (stdout.includes('cluster_state:ok')) break;
        if (Date.now() > until) throw new Error(`cluster node ${p.port} did not reach cluster_state:ok`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return { nodes: procs.map((p) => ({ host: '127.0.0.1', port: p.port })), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface LocalSentinel extends LocalDeployment {
  primary: RedisProcess;
  replica: RedisProcess;
  sentinelPort: number;
  masterName: string;
}

/** A primary, one replica and one sentinel (quorum 1) that fails over 1 s after the primary goes silent. */
export async function startRedisSentinel(): Promise<LocalSentinel> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tai-test-sentinel-'));
  const procs: RedisProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(procs.map((p) => stopProcess(p.proc, 'SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  };
  const masterName = 'taimaster';
  try {
    const primary = await startProcess(dir, ['--dbfilename', 'p.rdb'], 'Ready to accept connections');
    procs.push(primary);
    const replica = await startProcess(
      dir,
      ['--dbfilename', 'r.rdb', '--replicaof', '127.0.0.1', String(primary.port)],
      'MASTER <-> REPLICA sync: Finished',
    );
    procs.push(replica);
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `sentinel monitor ${masterName} 127.0.0.1 ${primary.port} 1`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        `sentinel failover-timeout ${masterName} 5000`,
        '',
      ].join('\n'),
    );
    // Ready once it has found the replica through the primary: only then can it fail over.
    const sentinel = await startProcess(dir, [conf, '--sentinel'], '+slave slave');
    procs.push(sentinel);
    return { primary, replica, sentinelPort: sentinel.port, masterName, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
