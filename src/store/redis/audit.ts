// The audit log on Redis (port: ../audit.ts). Drafts are written by the scripts that change
// questions (audit_append in common.lua); here they are chained in seq order and read back.
// Chaining is a compare-and-set on the head (audit-chain.lua), so any number of instances may
// run it at once: they compute the same hashes and only the first write lands. The lease
// (audit-lease.lua) only keeps the background workers of several instances from doing so.
import { type AuditDraft, type AuditEntry, type AuditHead, chainedAuditJson } from '../../domain/audit.ts';
import { isoTime } from '../../domain/question-view.ts';
import { AUDIT_SCAN_LIMIT, type AuditLog, auditMatches } from '../audit.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

/** Drafts chained per script call (a few hundred keep each script short). */
const CHAIN_BATCH = 500;
/** Entries read per HMGET while paging. */
const READ_BATCH = 500;
/** Entries one trim script drops. */
const TRIM_BATCH = 1000;

function parseHead(raw: string | null): AuditHead | null {
  if (!raw) return null;
  const sp = raw.indexOf(' ');
  return { seq: Number(raw.slice(0, sp)), hash: raw.slice(sp + 1) };
}

function range(from: number, to: number): string[] {
  const out: string[] = [];
  for (let s = from; s <= to; s++) out.push(String(s));
  return out;
}

export function createRedisAudit(redis: RedisClient, prefix: string, run: ScriptRunner): AuditLog {
  const k = (name: string) => `${prefix}audit:${name}`;

  /**
   * Chains the drafts written before it started (not those appended while it runs: under a
   * steady stream of claims it would never end), a batch per script call.
   */
  async function chainOnce(): Promise<AuditHead | null> {
    const [rawHead, rawLast] = await redis.mget(k('head'), k('seq'));
    let head = parseHead(rawHead ?? null);
    const last = Number(rawLast ?? 0);
    while ((head?.seq ?? 0) < last) {
      const from = head?.seq ?? 0;
      const to = Math.min(last, from + CHAIN_BATCH);
      const drafts = await redis.hmget(k('e'), ...range(from + 1, to));
      let prev = head?.hash ?? null;
      const args: (string | number)[] = [from, prev ?? ''];
      const pairs: (string | number)[] = [];
      for (let i = 0; i < drafts.length; i++) {
        const raw = drafts[i];
        // A draft is missing only if the chain moved on and trimmed it meanwhile: start over.
        if (raw === null || raw === undefined) break;
        const d = JSON.parse(raw) as AuditDraft | AuditEntry;
        if ('hash' in d) break; // chained by another instance meanwhile: re-read the head
        const e = chainedAuditJson(d, prev);
        prev = e.hash;
        pairs.push(from + 1 + i, e.json);
      }
      if (pairs.length === 0) {
        const now = (await redis.get(k('head'))) ?? null;
        if (now === (head ? `${head.seq} ${head.hash}` : null)) {
          throw new Error(`audit log: the draft of seq ${from + 1} is missing`);
        }
        head = parseHead(now);
        continue;
      }
      const written = await run('auditChain', [...args, prev ?? '', ...pairs]);
      // Written: the head is where this batch left it. Not: another instance moved it first.
      head =
        Number(written) === 1
          ? { seq: from + pairs.length / 2, hash: prev! }
          : parseHead((await redis.get(k('head'))) ?? null);
    }
    return head;
  }

  // One chaining at a time in this process: concurrent reads (16 trace spans after 16 answers)
  // each chaining the same drafts did the same hashing 16 times over, and every write but one
  // lost the compare-and-set (issue 46). A call made while one runs waits for it and shares one
  // more run after it, which covers whatever was appended before the call.
  let running: Promise<AuditHead | null> | null = null;
  let next: Promise<AuditHead | null> | null = null;
  function chain(): Promise<AuditHead | null> {
    if (!running) {
      running = chainOnce().finally(() => {
        running = null;
      });
      return running;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = null;
        return chain();
      });
    return next;
  }

  async function readRange(from: number, to: number): Promise<AuditEntry[]> {
    if (to < from) return [];
    const raws = await redis.hmget(k('e'), ...range(from, to));
    const out: AuditEntry[] = [];
    for (const raw of raws) if (raw) out.push(JSON.parse(raw) as AuditEntry);
    return out;
  }

  return {
    async append(a) {
      await run('auditAppend', [
        a.type,
        a.questionId ?? '',
        a.actor ?? '',
        a.via ?? '',
        a.detail ? JSON.stringify(a.detail) : '',
        a.at,
      ]);
    },

    chain,

    async lease(owner, ms) {
      return Number(await run('auditLease', [owner, ms])) === 1;
    },

    async bounds() {
      const head = await chain();
      const first = Number((await redis.get(k('first'))) ?? 1);
      return { first, head };
    },

    async page(q) {
      const head = await chain();
      const top = head?.seq ?? 0;
      const first = Number((await redis.get(k('first'))) ?? 1);
      const out: AuditEntry[] = [];
      let lastSeq = Math.max(q.afterSeq ?? 0, first - 1);
      if (q.questionId) {
        // The question's own index: only its entries are read.
        const seqs = await redis.zrangebyscore(
          `${prefix}audit:q:${q.questionId}`,
          `(${lastSeq}`,
          top,
          'LIMIT',
          0,
          AUDIT_SCAN_LIMIT,
        );
        for (let i = 0; i < seqs.length && out.length < q.first; i += READ_BATCH) {
          const batch = seqs.slice(i, i + READ_BATCH);
          const raws = batch.length > 0 ? await redis.hmget(k('e'), ...batch) : [];
          for (let j = 0; j < raws.length; j++) {
            const raw = raws[j];
            lastSeq = Number(batch[j]);
            if (!raw) continue;
            const e = JSON.parse(raw) as AuditEntry;
            if (auditMatches(e, q, Date.parse(e.at))) out.push(e);
            if (out.length >= q.first) break;
          }
        }
        const more = await redis.zcount(`${prefix}audit:q:${q.questionId}`, `(${lastSeq}`, top);
        return { entries: out, lastSeq, hasMore: more > 0 };
      }
      let scanned = 0;
      while (lastSeq < top && out.length < q.first && scanned < AUDIT_SCAN_LIMIT) {
        const to = Math.min(top, lastSeq + READ_BATCH);
        const batch = await readRange(lastSeq + 1, to);
        for (const e of batch) {
          lastSeq = e.seq;
          scanned++;
          if (auditMatches(e, q, Date.parse(e.at))) out.push(e);
          if (out.length >= q.first) break;
        }
        if (batch.length === 0) lastSeq = to;
      }
      return { entries: out, lastSeq, hasMore: lastSeq < top };
    },

    async trim(cutoff) {
      await chain();
      let n = 0;
      for (;;) {
        const dropped = Number(await run('auditTrim', [isoTime(cutoff), TRIM_BATCH]));
        n += dropped;
        if (dropped < TRIM_BATCH) return n;
      }
    },
  };
}
