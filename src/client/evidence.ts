// Checking an evidence bundle offline (API.md §24), against keys the auditor obtained on their
// own (never the bundle's jwks.json): the manifest's signature, every file's digest against the
// manifest (no file missing, none added), then the audit export inside it (every hash, the
// chain, the signed head) with the receipts checked against the entries of their questions and
// every resolved question accounted for (a receipt, or pruned). Files are read as streams from
// the zip's central directory (yauzl): memory stays bounded whatever the bundle's size.
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { type Entry, openPromise, type ZipFile } from 'yauzl';
import { resolvedStatusOf } from '../domain/audit.ts';
import { AuditVerificationError, type VerifyAuditOptions, verifyAuditExport } from './audit.ts';

export interface EvidenceSummary {
  files: number;
  entries: number;
  head: { seq: number; hash: string } | null;
  receipts: number;
  pruned: number;
  scope: { since: string | null; until: string | null };
}

const MAX_ENTRIES = 64;
const MAX_SMALL_FILE_BYTES = 1024 * 1024;
const MANIFEST = 'manifest.json';
const SIGNATURE = 'manifest.jws';

const fail = (message: string): never => {
  throw new AuditVerificationError(message, null, null);
};

async function readAll(stream: Readable, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_SMALL_FILE_BYTES) fail(`${name} is larger than ${MAX_SMALL_FILE_BYTES} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

async function digestOf(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const c of stream as AsyncIterable<Buffer>) hash.update(c);
  return `sha256:${hash.digest('hex')}`;
}

async function* linesOf(stream: Readable): AsyncGenerator<string> {
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
    stream.destroy();
  }
}

interface ManifestShape {
  typ?: unknown;
  files?: { name?: unknown; digest?: unknown }[];
  scope?: EvidenceSummary['scope'];
}

async function checkManifest(
  zip: ZipFile,
  entries: Map<string, Entry>,
  jwks: JSONWebKeySet,
): Promise<ManifestShape> {
  const manifestEntry = entries.get(MANIFEST) ?? fail(`the bundle has no ${MANIFEST}`);
  const signatureEntry = entries.get(SIGNATURE) ?? fail(`the bundle has no ${SIGNATURE} (it is not signed)`);
  const bytes = await readAll(await zip.openReadStreamPromise(manifestEntry), MANIFEST);
  const jws = (await readAll(await zip.openReadStreamPromise(signatureEntry), SIGNATURE)).toString('utf8');
  let payload: Record<string, unknown> = {};
  try {
    const r = await compactVerify(jws.trim(), createLocalJWKSet(jwks), { algorithms: ['EdDSA'] });
    payload = JSON.parse(new TextDecoder().decode(r.payload)) as Record<string, unknown>;
  } catch {
    fail(
      `${SIGNATURE} does not verify with the key set (it was altered, or a key you do not trust signed it)`,
    );
  }
  if (payload.typ !== 'evidence-manifest')
    fail(`${SIGNATURE} signs something else than an evidence manifest`);
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (payload.manifest !== digest) fail(`${MANIFEST} is not the manifest ${SIGNATURE} signed (altered)`);
  let manifest: ManifestShape = {};
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as ManifestShape;
  } catch {
    fail(`${MANIFEST} is not JSON`);
  }
  if (!Array.isArray(manifest.files)) fail(`${MANIFEST} lists no files`);
  return manifest;
}

/** Checks the bundle at `path`; throws AuditVerificationError naming the first problem. */
export async function verifyEvidenceBundle(path: string, o: VerifyAuditOptions): Promise<EvidenceSummary> {
  let zip: ZipFile;
  try {
    zip = await openPromise(path, { lazyEntries: true, autoClose: false, strictFileNames: true });
  } catch (err) {
    throw new AuditVerificationError(`${path} is not a readable zip (${(err as Error).message})`, null, null);
  }
  try {
    const entries = new Map<string, Entry>();
    for await (const e of zip.eachEntry()) {
      if (entries.size >= MAX_ENTRIES) fail(`the bundle holds more than ${MAX_ENTRIES} files`);
      if (entries.has(e.fileName)) fail(`${e.fileName} is in the bundle twice`);
      entries.set(e.fileName, e);
    }
    // The key set from the caller, fetched once: the same one checks the audit export below.
    const jwks = o.jwks ?? (await keySetFrom(o));
    const manifest = await checkManifest(zip, entries, jwks);
    const listed = new Set<string>();
    for (const f of manifest.files!) {
      const name = String(f.name);
      const entry =
        entries.get(name) ?? fail(`${name} is listed in the manifest but missing from the bundle`);
      listed.add(name);
      if ((await digestOf(await zip.openReadStreamPromise(entry))) !== f.digest) {
        fail(`${name}: its digest is not the one the signed manifest lists (altered)`);
      }
    }
    for (const name of entries.keys()) {
      if (name !== MANIFEST && name !== SIGNATURE && !listed.has(name))
        fail(`${name} is in the bundle but not in the signed manifest (added)`);
    }
    const audit = entries.get('audit.jsonl') ?? fail('the bundle has no audit.jsonl');
    const receipts = entries.get('receipts.jsonl') ?? fail('the bundle has no receipts.jsonl');
    return await checkAudit(zip, audit, receipts, jwks, manifest.files!.length);
  } finally {
    zip.close();
  }
}

async function keySetFrom(o: VerifyAuditOptions): Promise<JSONWebKeySet> {
  // verifyAuditExport fetches a URL's key set itself; fetched here once for the manifest too.
  if (!o.jwksUrl) return fail('no key set to check the bundle with');
  const res = await fetch(o.jwksUrl, { signal: AbortSignal.timeout(10_000) }).catch((err: Error) =>
    fail(`the key set could not be read: ${err.message}`),
  );
  if (!res.ok) fail(`the key set could not be read: status ${res.status}`);
  return (await res.json().catch(() => fail('the key set is not JSON'))) as JSONWebKeySet;
}

/**
 * The audit export with the receipts put where the export carries them (before its signed head),
 * so one check covers both; and every resolution in it has its receipt or is listed as pruned.
 */
async function checkAudit(
  zip: ZipFile,
  auditEntry: Entry,
  receiptsEntry: Entry,
  jwks: JSONWebKeySet,
  files: number,
): Promise<EvidenceSummary> {
  const resolved = new Set<string>();
  const accounted = new Set<string>();
  let pruned = 0;
  async function* combined(): AsyncGenerator<string> {
    let held: string | null = null;
    for await (const line of linesOf(await zip.openReadStreamPromise(auditEntry))) {
      if (held !== null) yield held;
      held = line;
      const e = parsed(line) as { seq?: unknown; type?: unknown; questionId?: unknown } | null;
      if (typeof e?.seq === 'number' && typeof e.questionId === 'string' && resolvedStatusOf(String(e.type)))
        resolved.add(e.questionId);
    }
    for await (const line of linesOf(await zip.openReadStreamPromise(receiptsEntry))) {
      if (line.trim() === '') continue;
      let r: { questionId?: unknown; jws?: unknown; pruned?: unknown };
      try {
        r = JSON.parse(line) as typeof r;
      } catch {
        return fail('receipts.jsonl: a line is not JSON');
      }
      const id = String(r.questionId);
      accounted.add(id);
      if (r.pruned === true) pruned++;
      else yield JSON.stringify({ receipt: { questionId: r.questionId, jws: r.jws } });
    }
    if (held !== null) yield held;
  }
  const s = await verifyAuditExport(combined(), { jwks });
  for (const id of accounted) {
    if (!resolved.has(id))
      fail(`receipts.jsonl names question ${id}, which the audit export does not resolve`);
  }
  for (const id of resolved) {
    if (!accounted.has(id)) fail(`receipts.jsonl has no receipt of question ${id} (nor says it was pruned)`);
  }
  return {
    files,
    entries: s.count,
    head: s.head,
    receipts: s.receipts,
    pruned,
    scope: { since: s.scope.since, until: s.scope.until },
  };
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    // verifyAuditExport names the line.
    return null;
  }
}

/** Whether the file starts like a zip (a local file header). */
export function looksLikeZip(firstBytes: Uint8Array): boolean {
  return firstBytes[0] === 0x50 && firstBytes[1] === 0x4b && firstBytes[2] === 0x03 && firstBytes[3] === 0x04;
}
