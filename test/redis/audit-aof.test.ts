// The AOF drill for the audit log (API.md §17: no change without its entry, no entry without its
// change). A private redis-server with appendonly (fsync always) is killed (SIGKILL) in the
// middle of a run of asks, answers and cancels on two store clients, and started again on the
// same files. Afterwards every stored question has its ASKED entry, every resolved one the entry
// of its resolution, every entry names a question that is stored, and the chain is gap-free.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { allEntries, expectChained } from '../store/audit-contract.ts';
import { freePort, specOf } from '../support/fixtures.ts';
import { startAofRedis } from '../support/redis-server.ts';

const QUESTIONS = 400;
const KILL_AFTER = 150;

describe('the audit log across a Redis crash and restart (AOF)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tai-aof-'));
  let proc: ChildProcess | null = null;
  const conns: Redis[] = [];
  afterAll(async () => {
    for (const c of conns) c.disconnect();
    if (proc && proc.exitCode === null) {
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('no change without its entry, no entry without its change', { timeout: 120_000 }, async () => {
    const port = await freePort();
    proc = await startAofRedis(port, dir);
    const url = `redis://127.0.0.1:${port}`;
    const prefix = 'aof:';
    const open = (): QuestionStore => {
      const redis = new Redis(url, { maxRetriesPerRequest: 2 });
      const subscriber = new Redis(url, { maxRetriesPerRequest: 2 });
      conns.push(redis, subscriber);
      return createRedisStore({ redis, subscriber, prefix });
    };
    const stores = [open(), open()];
    const opts = { maxPending: 10_000, retentionMs: 3_600_000 };

    let done = 0;
    let restarted: Promise<void> | null = null;
    const crash = async () => {
      const killed = proc!;
      const exited = new Promise((r) => killed.once('exit', r));
      killed.kill('SIGKILL');
      await exited;
      proc = await startAofRedis(port, dir);
    };
    const one = async (i: number) => {
      const s = stores[i % 2]!;
      const other = stores[(i + 1) % 2]!;
      const spec = specOf({ text: `q${i}` });
      // A call in flight when Redis dies has an unknown outcome: what matters is what is stored.
      try {
        await s.create(spec, opts);
        const now = Date.now();
        if (i % 3 === 0)
          await other.claim(spec.id, {
            status: 'CANCELLED',
            actor: 'ops',
            now,
            retentionMs: opts.retentionMs,
          });
        else
          await other.claim(spec.id, {
            status: 'ANSWERED',
            answer: i % 3 === 1,
            answeredBy: 'ops',
            now,
            retentionMs: opts.retentionMs,
          });
      } catch {}
      done++;
      if (done === KILL_AFTER) restarted = crash();
    };
    for (let i = 0; i < QUESTIONS; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, k) => one(i + k)));
      if (restarted) await restarted;
    }
    expect(restarted).not.toBeNull();

    const check = new Redis(url);
    conns.push(check);
    const entries = await allEntries(stores[0]!, 500);
    expectChained(entries);
    expect(entries[0]!.seq).toBe(1);
    const asked = new Set(entries.filter((e) => e.type === 'ASKED').map((e) => e.questionId));
    const resolved = new Map(entries.filter((e) => e.type !== 'ASKED').map((e) => [e.questionId, e.type]));
    const stored = new Map<string, string>();
    let cursor = '0';
    do {
      const [next, keys] = await check.scan(cursor, 'MATCH', `${prefix}q:*`, 'COUNT', 500);
      cursor = next;
      for (const k of keys) stored.set(k.slice(`${prefix}q:`.length), (await check.hget(k, 'st')) ?? '');
    } while (cursor !== '0');
    expect(stored.size).toBeGreaterThan(QUESTIONS / 2);
    // Every change has its entry …
    for (const [id, st] of stored) {
      expect(asked.has(id), `ASKED of ${id}`).toBe(true);
      if (st !== 'PENDING') expect(resolved.get(id), `resolution of ${id}`).toBe(st);
      else expect(resolved.has(id)).toBe(false);
    }
    // … and every entry its change.
    for (const id of asked) expect(stored.has(id!), `question of ${id}`).toBe(true);
    for (const s of stores) await s.close();
  });
});
