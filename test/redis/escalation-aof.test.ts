// Escalation timers survive a Redis restart with AOF (API.md §18): a question with a ladder is
// asked, the private redis-server (appendonly, fsync always) is killed with SIGKILL and started
// again on the same directory, and the step still moves into the outbox exactly once.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { freePort, redisPair, specOf, uniquePrefix } from '../support/fixtures.ts';
import { startAofRedis } from '../support/redis-server.ts';

const T0 = 1_900_000_000_000;
let procs: ChildProcess[] = [];
let dirs: string[] = [];

/** Kept for afterEach to kill whatever is still running. */
async function tracked(started: Promise<ChildProcess>): Promise<ChildProcess> {
  const proc = await started;
  procs.push(proc);
  return proc;
}

afterEach(() => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  procs = [];
  dirs = [];
});

describe('escalation timers and a Redis restart with AOF', () => {
  it('a step due after the restart still fires, once', async () => {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'tai-esc-aof-'));
    dirs.push(dir);
    const prefix = uniquePrefix();
    const url = `redis://127.0.0.1:${port}`;

    const first = await tracked(startAofRedis(port, dir));
    const a = redisPair(url);
    const before = createRedisStore({ redis: a.redis, subscriber: a.subscriber, prefix });
    const spec = specOf({
      createdAt: T0,
      timeoutAt: T0 + 3600_000,
      escalation: [{ afterSeconds: 10, action: 'REMIND', channel: null, recipient: null }],
    });
    const created = await before.create(spec, {
      maxPending: 10,
      retentionMs: 60_000,
      escalationDue: [T0 + 10_000],
    });
    expect(created.kind).toBe('created');
    await before.close();
    await a.close();
    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGKILL');
    await exited;

    await tracked(startAofRedis(port, dir));
    const b = redisPair(url);
    const after = createRedisStore({ redis: b.redis, subscriber: b.subscriber, prefix });
    try {
      expect(await after.escalateDue(T0 + 9_999, 10)).toBe(0);
      expect(await after.escalateDue(T0 + 10_000, 10)).toBe(1);
      expect(await after.escalateDue(T0 + 10_000, 10)).toBe(0);
      const leased = await after.outbox.leaseDue(T0 + 10_000, 10, 60_000, 'w');
      expect(leased.map((i) => i.id)).toEqual([`${spec.id}:escalate:0`]);
    } finally {
      await after.close();
      await b.close();
    }
  });
});
