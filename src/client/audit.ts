// Checking an audit export offline (API.md §17): every entry's hash, the chain from one entry to
// the next, the signed head on the last line (so a cut or shortened export is caught), and the
// decision receipts it carries against the entries of their questions. Reads line by line: an
// export of any size is checked in little memory. The first problem, by line, is reported.
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { type AuditEntry, type AuditHead, auditHashOf, resolvedStatusOf } from '../domain/audit.ts';
import { type VerifyReceiptOptions, verifyReceipt } from './receipts.ts';

export class AuditVerificationError extends Error {
  /** The line (1-based) of the first broken entry; null when the problem is the whole export's. */
  readonly line: number | null;
  /** The seq of the broken entry, when it has one. */
  readonly seq: number | null;

  constructor(message: string, line: number | null, seq: number | null) {
    super(message);
    this.name = 'AuditVerificationError';
    this.line = line;
    this.seq = seq;
  }
}

export interface VerifyAuditOptions {
  /** The server's key set (the JSON of `/.well-known/jwks.json`). */
  jwks?: JSONWebKeySet;
  /** Where to fetch it instead. */
  jwksUrl?: string | URL;
}

export interface AuditExportSummary {
  /** Entries checked. */
  count: number;
  /** The signed head: the last entry of the export. */
  head: AuditHead | null;
  /** Decision receipts checked. */
  receipts: number;
  scope: { questionId: string | null; since: string | null; until: string | null };
}

interface HeadLine {
  head: AuditHead | null;
  count: number;
  scope: AuditExportSummary['scope'];
  signature: string | null;
}

interface Problem {
  line: number;
  seq: number | null;
  message: string;
}

/** A break in the seq numbers: entries `from..to` are not where they belong. */
interface Gap extends Problem {
  from: number;
  to: number;
}

const MAX_JWKS_BYTES = 1024 * 1024;

function isEntry(v: unknown): v is AuditEntry {
  const e = v as AuditEntry;
  return typeof e === 'object' && e !== null && typeof e.seq === 'number' && typeof e.hash === 'string';
}

function entryName(line: number, seq: number | null): string {
  return seq === null ? `line ${line}` : `line ${line} (entry seq ${seq})`;
}

/** The key set, fetched once when given by URL (the receipts of the export use it too). */
async function keySetOf(o: VerifyAuditOptions): Promise<JSONWebKeySet> {
  if (o.jwks) return o.jwks;
  if (!o.jwksUrl) throw new AuditVerificationError('no key set to check the signed head with', null, null);
  try {
    const res = await fetch(o.jwksUrl, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok || !res.body) throw new Error(`status ${res.status}`);
    // A key set is a few hundred bytes: read at most MAX_JWKS_BYTES of whatever answers.
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_JWKS_BYTES) {
        await reader.cancel();
        throw new Error(`larger than ${MAX_JWKS_BYTES} bytes`);
      }
      chunks.push(value);
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    return JSON.parse(new TextDecoder().decode(all)) as JSONWebKeySet;
  } catch (err) {
    throw new AuditVerificationError(`the key set could not be read: ${(err as Error).message}`, null, null);
  }
}

async function headPayload(
  signature: string,
  jwks: JSONWebKeySet,
  line: number,
): Promise<Record<string, unknown>> {
  const keys = createLocalJWKSet(jwks);
  try {
    const r = await compactVerify(signature, keys, { algorithms: ['EdDSA'] });
    return JSON.parse(new TextDecoder().decode(r.payload)) as Record<string, unknown>;
  } catch {
    throw new AuditVerificationError(
      `line ${line}: the signed head does not verify with the key set (its signature was altered, or another key signed it)`,
      line,
      null,
    );
  }
}

/**
 * How the file's chain, itself unbroken, differs from what the head signed: cut (it ends
 * before the signed seq), extended (it goes on past it), rewritten (the same last seq with
 * another hash: that entry, or one before it, was changed and the chain hashed again after it),
 * or entries missing or added with the same last entry (a question's export, or a cut start).
 */
function headMismatch(
  signed: AuditHead | null,
  signedCount: number,
  lastHead: AuditHead | null,
  count: number,
  lastLine: number,
): Problem | null {
  const signedSeq = signed?.seq ?? 0;
  const lastSeq = lastHead?.seq ?? 0;
  const signedAt = signed ? `seq ${signedSeq}` : 'no entry';
  if (lastSeq > signedSeq) {
    return {
      line: lastLine,
      seq: lastSeq,
      message: `the export was extended: the signed head ends at ${signedAt}, the file goes on to seq ${lastSeq} (line ${lastLine})`,
    };
  }
  if (lastSeq < signedSeq) {
    const where = lastHead ? `after seq ${lastSeq} (line ${lastLine})` : 'before its first entry';
    return {
      line: lastLine,
      seq: lastHead ? lastSeq : null,
      message: `the export was cut ${where}: the signed head names seq ${signedSeq} and ${signedCount} entries, the file has ${count}`,
    };
  }
  if (signed && lastHead && signed.hash !== lastHead.hash) {
    return {
      line: lastLine,
      seq: lastSeq,
      message: `${entryName(lastLine, lastSeq)}: rewritten: its hash is not the one the signed head names for seq ${lastSeq} (this entry, or one before it that was hashed into the chain again, was changed)`,
    };
  }
  if (count < signedCount) {
    return {
      line: 0,
      seq: null,
      message: `${signedCount - count} of the ${signedCount} signed entries are missing from the file`,
    };
  }
  if (count > signedCount) {
    return {
      line: 0,
      seq: null,
      message: `the export was extended: the file has ${count} entries, the signed head counts ${signedCount}`,
    };
  }
  return null;
}

/** Checks an export given as its lines; throws AuditVerificationError naming the first problem. */
export async function verifyAuditExport(
  lines: AsyncIterable<string> | Iterable<string>,
  o: VerifyAuditOptions,
): Promise<AuditExportSummary> {
  let n = 0;
  let count = 0;
  let last: AuditEntry | null = null;
  let headLine: HeadLine | null = null;
  let headAt = 0;
  let lastLine = 0;
  let first: Problem | null = null;
  /** The first place the chain breaks: a problem only for an export of the whole chain. */
  let linkBreak: Problem | Gap | null = null;
  const questions = new Set<string>();
  /** Each question's resolution entry, to check its receipt against. */
  const resolutions = new Map<string, AuditEntry>();
  const receipts: { line: number; questionId: string; jws: string }[] = [];
  const note = (p: Problem) => {
    first ??= p;
  };

  for await (const raw of lines) {
    n++;
    if (raw.trim() === '') continue;
    if (headLine) {
      note({ line: n, seq: null, message: `${entryName(n, null)}: a line after the signed head` });
      continue;
    }
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      note({ line: n, seq: null, message: `${entryName(n, null)}: not JSON` });
      continue;
    }
    const obj = v as Record<string, unknown>;
    if (obj && typeof obj === 'object' && 'signature' in obj && 'head' in obj) {
      headLine = obj as unknown as HeadLine;
      headAt = n;
      continue;
    }
    if (obj && typeof obj === 'object' && 'receipt' in obj) {
      const r = obj.receipt as { questionId?: unknown; jws?: unknown };
      if (typeof r?.questionId !== 'string' || typeof r.jws !== 'string') {
        note({
          line: n,
          seq: null,
          message: `${entryName(n, null)}: a receipt line without questionId and jws`,
        });
      } else receipts.push({ line: n, questionId: r.questionId, jws: r.jws });
      continue;
    }
    if (!isEntry(v)) {
      note({ line: n, seq: null, message: `${entryName(n, null)}: not an audit entry` });
      continue;
    }
    const e = v;
    count++;
    const intact = auditHashOf(e) === e.hash;
    if (!intact) {
      note({
        line: n,
        seq: e.seq,
        message: `${entryName(n, e.seq)}: its hash does not match its content (altered)`,
      });
    }
    if (last) {
      if (e.seq <= last.seq) {
        // Out of order in any export. When this entry is what an earlier gap missed, the gap
        // was a reordering, not a loss: it is reported as such, where it begins.
        note({
          line: n,
          seq: e.seq,
          message: `${entryName(n, e.seq)}: entries out of order: seq ${e.seq} comes after seq ${last.seq} (line ${lastLine})`,
        });
        if (linkBreak && 'from' in linkBreak && e.seq >= linkBreak.from && e.seq <= linkBreak.to) {
          linkBreak = {
            line: linkBreak.line,
            seq: linkBreak.seq,
            message: `${entryName(linkBreak.line, linkBreak.seq)}: entries out of order: seq ${e.seq} comes later, on line ${n}`,
          };
        }
      } else if (e.seq !== last.seq + 1) {
        const missing =
          e.seq === last.seq + 2
            ? `entry ${last.seq + 1} is missing`
            : `entries ${last.seq + 1}..${e.seq - 1} are missing`;
        linkBreak ??= {
          line: n,
          seq: e.seq,
          message: `${entryName(n, e.seq)}: the chain breaks here: ${missing}`,
          from: last.seq + 1,
          to: e.seq - 1,
        };
      } else if (e.prev !== last.hash && intact) {
        // This entry is as hashed, so it names the hash its predecessor had when it was written:
        // the predecessor was changed and hashed again.
        linkBreak ??= {
          line: lastLine,
          seq: last.seq,
          message: `${entryName(lastLine, last.seq)}: rewritten: its hash is not the prev that seq ${e.seq} (line ${n}) records for it`,
        };
      }
    }
    if (e.questionId) questions.add(e.questionId);
    if (e.questionId && resolvedStatusOf(e.type) !== null) resolutions.set(e.questionId, e);
    last = e;
    lastLine = n;
  }

  if (!headLine) {
    note({ line: n + 1, seq: null, message: 'the export ends without its signed head (cut short)' });
  }
  const scope = headLine?.scope ?? { questionId: null, since: null, until: null };
  // A question's export skips other questions' entries: its links cannot be checked, the
  // signed count and head stand in for them.
  const whole = !scope.questionId;
  const pick = (a: Problem | null, b: Problem | null) => (a && b ? (a.line <= b.line ? a : b) : (a ?? b));
  let problem: Problem | null = pick(first, whole ? linkBreak : null);
  if (!problem && scope.questionId) {
    for (const q of questions) {
      if (q !== scope.questionId) {
        problem = {
          line: 0,
          seq: null,
          message: `an entry of question ${q} in the export of ${scope.questionId}`,
        };
        break;
      }
    }
  }
  if (problem) throw new AuditVerificationError(problem.message, problem.line || null, problem.seq);
  const h = headLine!;
  if (typeof h.signature !== 'string') {
    throw new AuditVerificationError(`line ${headAt}: the head is not signed`, headAt, null);
  }
  const jwks = await keySetOf(o);
  const payload = await headPayload(h.signature, jwks, headAt);
  // The same key signs receipts: a receipt's signature is valid, but it signs no export.
  if (payload.typ !== 'audit-export') {
    throw new AuditVerificationError(
      `line ${headAt}: the head's signature signs something else than an audit export (its typ is not "audit-export")`,
      headAt,
      null,
    );
  }
  const signedHead = (payload.head ?? null) as AuditHead | null;
  const lastHead = last ? { seq: last.seq, hash: last.hash } : null;
  const same = (a: AuditHead | null, b: AuditHead | null) =>
    a === null ? b === null : b !== null && a.seq === b.seq && a.hash === b.hash;
  if (
    !same(signedHead, h.head) ||
    payload.count !== h.count ||
    JSON.stringify(payload.scope) !== JSON.stringify(h.scope)
  ) {
    throw new AuditVerificationError(
      `line ${headAt}: the head line differs from what was signed`,
      headAt,
      null,
    );
  }
  const mismatch = headMismatch(signedHead, Number(payload.count), lastHead, count, lastLine);
  if (mismatch) throw new AuditVerificationError(mismatch.message, mismatch.line || null, mismatch.seq);

  // The receipts' issuer is the server's public URL, which the key set's address need not be.
  const receiptOpts: VerifyReceiptOptions = { jwks };
  for (const r of receipts) {
    const where = `line ${r.line} (receipt of ${r.questionId})`;
    let claims: Awaited<ReturnType<typeof verifyReceipt>>;
    try {
      claims = await verifyReceipt(r.jws, { ...receiptOpts, questionId: r.questionId });
    } catch (err) {
      throw new AuditVerificationError(`${where}: ${(err as Error).message}`, r.line, null);
    }
    const e = resolutions.get(r.questionId);
    if (!e)
      throw new AuditVerificationError(
        `${where}: no resolution of this question in the export`,
        r.line,
        null,
      );
    const digest = e.detail?.answerDigest;
    if (
      claims.outcome.status !== resolvedStatusOf(e.type) ||
      (digest !== undefined && claims.outcome.answerDigest !== digest)
    ) {
      throw new AuditVerificationError(`${where}: it says otherwise than entry seq ${e.seq}`, r.line, e.seq);
    }
  }
  return { count, head: lastHead, receipts: receipts.length, scope };
}
