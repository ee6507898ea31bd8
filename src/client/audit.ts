// Checking an audit export offline (API.md §17): every entry's hash, the chain from one entry to
// the next, the signed head on the last line (so a cut or shortened export is caught), and the
// decision receipts it carries against the entries of their questions. Reads line by line: an
// export of any size is checked in little memory. The first problem, by line, is reported.
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { type AuditEntry, type AuditHead, auditHashOf } from '../domain/audit.ts';
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

const MAX_JWKS_BYTES = 1024 * 1024;
const RESOLUTIONS = new Set(['ANSWERED', 'TIMED_OUT', 'CANCELLED']);

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

async function headPayload(signature: string, jwks: JSONWebKeySet): Promise<Record<string, unknown>> {
  const keys = createLocalJWKSet(jwks);
  try {
    const r = await compactVerify(signature, keys, { algorithms: ['EdDSA'] });
    return JSON.parse(new TextDecoder().decode(r.payload)) as Record<string, unknown>;
  } catch {
    throw new AuditVerificationError('the signed head does not verify with the key set', null, null);
  }
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
  let first: Problem | null = null;
  /** The first place the chain breaks: a problem only for an export of the whole chain. */
  let linkBreak: Problem | null = null;
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
    if (auditHashOf(e) !== e.hash) {
      note({
        line: n,
        seq: e.seq,
        message: `${entryName(n, e.seq)}: its hash does not match its content (altered)`,
      });
    }
    if (last) {
      if (e.seq <= last.seq) {
        note({
          line: n,
          seq: e.seq,
          message: `${entryName(n, e.seq)}: out of order (after seq ${last.seq})`,
        });
      } else if (e.seq !== last.seq + 1 || e.prev !== last.hash) {
        const why =
          e.seq !== last.seq + 1
            ? `entries ${last.seq + 1}..${e.seq - 1} are missing`
            : `its prev is not the hash of seq ${last.seq}`;
        linkBreak ??= {
          line: n,
          seq: e.seq,
          message: `${entryName(n, e.seq)}: the chain breaks here: ${why}`,
        };
      }
    }
    if (e.questionId) questions.add(e.questionId);
    if (e.questionId && RESOLUTIONS.has(e.type)) resolutions.set(e.questionId, e);
    last = e;
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
  const payload = await headPayload(h.signature, jwks);
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
  if (!same(signedHead, lastHead) || payload.count !== count) {
    const at = signedHead ? `seq ${signedHead.seq}` : 'no entry';
    throw new AuditVerificationError(
      `the export was cut or extended: the signed head names ${at} and ${String(payload.count)} entries, the file has ${lastHead ? `seq ${lastHead.seq} last` : 'no entry'} and ${count}`,
      headAt,
      null,
    );
  }

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
      claims.outcome.status !== e.type ||
      (digest !== undefined && claims.outcome.answerDigest !== digest)
    ) {
      throw new AuditVerificationError(`${where}: it says otherwise than entry seq ${e.seq}`, r.line, e.seq);
    }
  }
  return { count, head: lastHead, receipts: receipts.length, scope };
}
