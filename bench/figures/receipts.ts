// How fast decision receipts (API.md §16) sign: the production signer (jose's compact JWS,
// EdDSA, no cache) over a real receipt's claims, beside Node's own Ed25519 sign of the same
// claim bytes (the floor: what any JWS library must at least spend). jose signs through
// WebCrypto, whose Ed25519 job runs on libuv's thread pool and resolves a promise, so two views:
// one receipt at a time on this process's main thread (wall clock, the figure of issue 30), and
// receipts per CPU-second of the whole process (every thread) with 16 in flight, which is what
// one core's worth of CPU signs when a server signs for many readers at once. Blocks of the two
// alternate, the median block counts.
import { sign as edSign, generateKeyPairSync } from 'node:crypto';
import { receiptClaimsOf } from '../../src/domain/decision-receipt.ts';
import { recordOf } from '../../src/domain/question.ts';
import { generateReceiptKey } from '../../src/proof/receipt-keys.ts';
import { createReceiptSigner } from '../../src/proof/receipt-signer.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { confirmSpec } from '../lib/spec.ts';
import { median } from '../lib/stats.ts';

const BLOCK_MS = 700;
const BLOCKS = 5;
const IN_FLIGHT = 16;
const ISSUER = 'https://hitl.example';

interface Rate {
  wall: number;
  cpu: number;
}

/** `work` run back to back (`inFlight` loops) for BLOCK_MS: per wall second and per CPU second. */
async function block(work: () => unknown, inFlight: number): Promise<Rate> {
  let n = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + BLOCK_MS;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await work();
        n++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { wall: n / ((performance.now() - t0) / 1000), cpu: n / ((cpu.user + cpu.system) / 1e6) };
}

export async function receiptSigning(ctx: BenchContext): Promise<Section> {
  const key = await generateReceiptKey();
  const signer = await createReceiptSigner({ keys: [key], issuer: () => ISSUER, cacheSize: 0 });
  const q = recordOf(confirmSpec(), {
    status: 'ANSWERED',
    answer: true,
    answeredBy: 'ops',
    answeredAt: Date.now(),
    closedAt: null,
    cancelReason: null,
  });
  const { privateKey } = generateKeyPairSync('ed25519');
  const bytes = Buffer.from(JSON.stringify(receiptClaimsOf(q, ISSUER)));
  const receipt = () => signer.sign(q);
  const raw = () => edSign(null, bytes, privateKey);
  // Warm both paths (JIT, the key's first use) before any block counts.
  for (let i = 0; i < 2000; i++) {
    await receipt();
    raw();
  }
  const seq = { receipt: [] as number[], raw: [] as number[] };
  const par = { receipt: [] as number[], raw: [] as number[] };
  for (let b = 0; b < BLOCKS; b++) {
    seq.receipt.push((await block(receipt, 1)).wall);
    seq.raw.push((await block(raw, 1)).wall);
    par.receipt.push((await block(receipt, IN_FLIGHT)).cpu);
    par.raw.push((await block(raw, 1)).cpu);
  }
  const r = {
    seq: median(seq.receipt),
    seqRaw: median(seq.raw),
    cpu: median(par.receipt),
    cpuRaw: median(par.raw),
  };
  ctx.log(
    `  receipts/s ${r.seq.toFixed(0)} (raw ${r.seqRaw.toFixed(0)}); per CPU-s at ${IN_FLIGHT} in flight ${r.cpu.toFixed(0)} (raw ${r.cpuRaw.toFixed(0)})`,
  );
  const parameters = {
    blockMs: BLOCK_MS,
    blocks: BLOCKS,
    cache: 0,
    inFlight: IN_FLIGHT,
    claimBytes: bytes.length,
  };
  return {
    title: 'Receipt signing',
    about:
      'Receipts (API.md §16) signed by the production signer (jose, compact JWS, EdDSA, no cache) over a real receipt’s claims, beside Node’s own Ed25519 sign of the same claim bytes, in alternating blocks (median of five). First one at a time on the main thread (wall clock); then per CPU-second of the whole process with 16 in flight: jose signs through WebCrypto, whose Ed25519 job runs on the thread pool, so the first row waits on a thread hop the second does not count twice.',
    figures: [
      figure({
        name: 'receipts signed/s, one core',
        value: Math.round(r.seq),
        unit: '/s',
        floorName: 'bare Ed25519 signs',
        floor: Math.round(r.seqRaw),
        floorUnit: '/s',
        parameters,
      }),
      figure({
        name: 'receipts signed per CPU-second, 16 in flight',
        value: Math.round(r.cpu),
        unit: '/s',
        floorName: 'bare Ed25519 signs per CPU-second',
        floor: Math.round(r.cpuRaw),
        floorUnit: '/s',
        parameters,
      }),
    ],
  };
}
