// The evidence bundle streams (API.md §24): a log of 100,000 entries of about 1 KiB each (some
// 100 MiB of JSON Lines before compression) leaves the server as a zip while its live heap,
// measured after a full collection at every MiB read, stays under HEAP_BOUND_MIB; then the
// saved bundle verifies. A bundle built in memory would hold all of it.
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyEvidenceBundle } from '../../src/client/evidence.ts';
import { jcsDigest } from '../../src/domain/digest.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const ENTRIES = 100_000;
const HEAP_BOUND_MIB = 40;
const SAMPLE_EVERY_BYTES = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'tai-evidence-memory-'));

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

function heapMiB(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

describe('an evidence bundle of 100,000 entries', () => {
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
    rmSync(dir, { recursive: true, force: true });
  });

  it(`streams it with the live heap under ${HEAP_BOUND_MIB} MiB of growth, and it verifies`, async () => {
    const url = await t.listen();
    const before = heapMiB();
    const res = await fetch(`${url}/api/interactions/audit/evidence`, { headers: auth('admin') });
    expect(res.status).toBe(200);
    const file = join(dir, 'evidence.zip');
    const out = createWriteStream(file);
    const reader = res.body!.getReader();
    let bytes = 0;
    let sinceSample = 0;
    let peak = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      sinceSample += value.byteLength;
      if (!out.write(value)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      if (sinceSample >= SAMPLE_EVERY_BYTES) {
        sinceSample = 0;
        peak = Math.max(peak, heapMiB() - before);
      }
    }
    await new Promise<void>((resolve) => out.end(() => resolve()));
    expect(bytes).toBeGreaterThan(SAMPLE_EVERY_BYTES);
    expect(peak).toBeLessThan(HEAP_BOUND_MIB);
    const jwks = JSON.parse((await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body);
    const s = await verifyEvidenceBundle(file, { jwks });
    expect(s).toMatchObject({ entries: ENTRIES, head: { seq: ENTRIES }, receipts: 0, pruned: 0 });
  }, 240_000);
});
