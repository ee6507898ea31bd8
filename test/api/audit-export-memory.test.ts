// The audit export streams (API.md §17): 100,000 entries of about 1 KiB each (some 100 MiB of
// JSON Lines) leave the server while its live heap, measured after a full collection at every
// few MiB read, stays under HEAP_BOUND_MIB (measured: about 4 MiB of growth for 125 MB sent).
// An export built in memory would hold all of it.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { jcsDigest } from '../../src/domain/digest.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const ENTRIES = 100_000;
const HEAP_BOUND_MIB = 40;
const SAMPLE_EVERY_BYTES = 4 * 1024 * 1024;

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

function heapMiB(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

describe('an audit export of 100,000 entries', () => {
  let t: TestServer;
  let redis: Redis;

  beforeAll(async () => {
    t = await startServer({ store: 'redis' });
    redis = new Redis(inject('redisUrl'));
    // Drafts as the scripts write them (audit_append), a thousand per command; the first read
    // chains them all, in batches, before the export starts.
    const facts: Record<string, string> = { format: 'FORM' };
    for (let i = 0; i < 12; i++) facts[`d${i}`] = jcsDigest(`fact ${i}`);
    const at = Date.now() - 60_000;
    for (let start = 1; start <= ENTRIES; start += 1000) {
      const args: string[] = [];
      for (let seq = start; seq < start + 1000; seq++) {
        args.push(
          String(seq),
          JSON.stringify({
            seq,
            at,
            type: 'ASKED',
            questionId: `q-${seq}`,
            actor: 'agent',
            via: 'api',
            detail: facts,
          }),
        );
      }
      await redis.hset(`${t.prefix}audit:e`, ...args);
    }
    await redis.set(`${t.prefix}audit:seq`, ENTRIES);
  }, 120_000);

  afterAll(async () => {
    await redis.del(`${t.prefix}audit:e`, `${t.prefix}audit:seq`, `${t.prefix}audit:head`);
    redis.disconnect();
    await t.close();
  });

  it(`streams them with the live heap under ${HEAP_BOUND_MIB} MiB of growth`, async () => {
    const url = await t.listen();
    const before = heapMiB();
    const res = await fetch(`${url}/api/interactions/audit`, { headers: auth('admin') });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let bytes = 0;
    let lines = 0;
    let sinceSample = 0;
    let peak = 0;
    let tail = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      sinceSample += value.byteLength;
      const text = tail + decoder.decode(value, { stream: true });
      const parts = text.split('\n');
      tail = parts.pop()!;
      lines += parts.length;
      if (sinceSample >= SAMPLE_EVERY_BYTES) {
        sinceSample = 0;
        peak = Math.max(peak, heapMiB() - before);
      }
    }
    expect(lines).toBe(ENTRIES + 1);
    expect(bytes).toBeGreaterThan(ENTRIES * 900);
    expect(peak).toBeLessThan(HEAP_BOUND_MIB);
  }, 180_000);
});
