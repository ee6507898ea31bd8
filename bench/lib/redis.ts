// A private redis-server for the run (never the machine's Redis on 6379): a free loopback
// port, no persistence, a temporary directory removed afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { sleep } from './pool.ts';
import { type Child, freePort, startChild } from './process.ts';

export interface PrivateRedis {
  url: string;
  version: string;
  child: Child;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'tai-bench-redis-'));
  const child = startChild(
    'redis-server',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {},
  );
  const end = Date.now() + 10_000;
  while (!child.output().includes('Ready to accept connections')) {
    if (!child.isRunning() || Date.now() > end) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start:\n${child.output().slice(-2000)}`);
    }
    await sleep(20);
  }
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url);
  const info = await probe.info('server');
  probe.disconnect();
  return {
    url,
    version: /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? 'unknown',
    child,
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * PUBLISH → message on a subscribed connection, timed one message at a time: the Redis part
 * of an answer waking a waiter on another instance, with nothing else around it.
 */
export interface PubSubProbe {
  roundTripMs(): Promise<number>;
  close(): void;
}

export async function pubSubProbe(url: string): Promise<PubSubProbe> {
  const channel = `bench:probe:${randomBytes(6).toString('hex')}`;
  const publisher = new Redis(url);
  const subscriber = new Redis(url);
  await subscriber.subscribe(channel);
  let seq = 0;
  let waiting: { seq: string; resolve(at: number): void } | null = null;
  subscriber.on('message', (ch: string, message: string) => {
    const at = performance.now();
    if (ch === channel && waiting?.seq === message) waiting.resolve(at);
  });
  return {
    async roundTripMs() {
      const message = String(++seq);
      const arrived = new Promise<number>((resolve) => {
        waiting = { seq: message, resolve };
      });
      const sentAt = performance.now();
      await publisher.publish(channel, message);
      return (await arrived) - sentAt;
    },
    close() {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
