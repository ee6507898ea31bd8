// Where the numbers came from: they mean little without the machine and its load.
import os from 'node:os';

export interface Machine {
  os: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  redis: string;
  openFilesLimit: number;
  loadAverage: { start: number[]; end?: number[] };
}

export function describeMachine(redisVersion: string, openFiles: number): Machine {
  return {
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    redis: redisVersion,
    openFilesLimit: openFiles,
    loadAverage: { start: loadAverage() },
  };
}

export function loadAverage(): number[] {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}
