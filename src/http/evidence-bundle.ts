// The evidence bundle (API.md §24): one zip an auditor can check offline. Written as a stream
// (yazl): each file is produced when the zip reaches it and only as fast as the client reads, so
// an export of any size holds about one store batch in memory. Every file's SHA-256 is taken
// as it is written; `manifest.json` lists them and comes last, and `manifest.jws` signs its
// digest with the receipt key, which never leaves the server.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { controlsDocument } from '../domain/evidence-controls.ts';
import type { Principal } from '../domain/principal.ts';
import type { Interactions } from '../engine/types.ts';
import { auditExport, resolvedIds } from './audit-export.ts';

/** What `manifest.json` lists of each file. */
export interface ManifestFile {
  name: string;
  digest: string;
  bytes: number;
}

export interface EvidenceManifest {
  typ: 'evidence-manifest';
  createdAt: string;
  scope: { since: string | null; until: string | null };
  /** The last audit entry exported (as the export's signed head names it). */
  auditHead: { seq: number; hash: string } | null;
  files: ManifestFile[];
}

/** A JSON file the deployment adds when it has the records (groups and delegations, API.md §22). */
export interface EvidenceFile {
  name: string;
  content: unknown;
}

export interface EvidenceOptions {
  engine: Interactions;
  principal: Principal;
  /** Epoch ms; null: the whole retained log. */
  since: number | null;
  until: number | null;
  /** The receipt keys' public parts (what /.well-known/jwks.json serves). */
  jwks: () => { keys: readonly object[] };
  /** More files: the groups and delegations when the deployment keeps them. */
  extraFiles?: () => Promise<readonly EvidenceFile[]>;
  now: () => number;
}

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_SIGNATURE_FILE = 'manifest.jws';
export const MANIFEST_TYP = 'evidence-manifest';

export function sha256Of(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const json = (v: unknown): Buffer => Buffer.from(`${JSON.stringify(v, null, 2)}\n`, 'utf8');

/**
 * The bundle as a byte stream. Refuses a caller who may not read the audit log at once (before
 * the first byte); a store failure later ends the stream with an error (the zip is then cut,
 * and a cut zip does not verify).
 */
export function evidenceBundle(o: EvidenceOptions): Readable {
  const filter = { since: o.since, until: o.until, questionId: null };
  const audit = auditExport(o.engine, o.principal, filter, false);
  const zip = new ZipFile();
  const mtime = new Date(o.now());
  const files: ManifestFile[] = [];

  /** A streamed file: hashed as the zip reads it; resolves once it was read to the end. */
  const addStream = (name: string, chunks: () => AsyncIterable<string>): Promise<void> => {
    const at = files.length;
    files.push({ name, digest: '', bytes: 0 });
    return new Promise((resolve, reject) => {
      zip.addReadStreamLazy(name, { mtime, compress: true }, (cb) => {
        const hash = createHash('sha256');
        let bytes = 0;
        async function* hashed(): AsyncGenerator<Buffer> {
          for await (const chunk of chunks()) {
            const b = Buffer.from(chunk, 'utf8');
            hash.update(b);
            bytes += b.length;
            yield b;
          }
          files[at] = { name, digest: `sha256:${hash.digest('hex')}`, bytes };
          resolve();
        }
        const stream = Readable.from(hashed(), { objectMode: false, highWaterMark: 1 });
        stream.once('error', reject);
        cb(null, stream);
      });
    });
  };
  const addJson = (name: string, v: unknown): void => {
    const b = json(v);
    files.push({ name, digest: sha256Of(b), bytes: b.length });
    zip.addBuffer(b, name, { mtime, compress: true });
  };

  /** Each resolved question of the export: its receipt, or that it was pruned. */
  async function* receiptLines(): AsyncGenerator<string> {
    const head = audit.end().head;
    if (!head) return;
    for await (const batch of o.engine.audit.exportOf(o.principal, filter).entries()) {
      const ids = resolvedIds(batch.filter((e) => e.seq <= head.seq));
      const records = await Promise.all(ids.map((id) => o.engine.get(o.principal, id)));
      let text = '';
      for (const [i, questionId] of ids.entries()) {
        const q = records[i];
        const jws = q ? await o.engine.receipt(q) : null;
        if (jws) text += `${JSON.stringify({ questionId, jws })}\n`;
        else if (!q) text += `${JSON.stringify({ questionId, pruned: true })}\n`;
      }
      if (text) yield text;
      if (batch.at(-1)!.seq >= head.seq) return;
    }
  }

  async function build(): Promise<void> {
    // The zip writes its entries in the order they were added, each read when its turn comes.
    const streamed = [addStream('audit.jsonl', () => audit.lines), addStream('receipts.jsonl', receiptLines)];
    addJson('jwks.json', o.jwks());
    addJson('policies.json', await o.engine.policyRules.list(o.principal));
    for (const f of (await o.extraFiles?.()) ?? []) addJson(f.name, f.content);
    addJson('controls.json', controlsDocument());
    await Promise.all(streamed);
    const scope = audit.end().scope;
    const manifest: EvidenceManifest = {
      typ: MANIFEST_TYP,
      createdAt: mtime.toISOString(),
      scope: { since: scope.since, until: scope.until },
      auditHead: audit.end().head,
      files,
    };
    const bytes = json(manifest);
    zip.addBuffer(bytes, MANIFEST_FILE, { mtime, compress: true });
    const signature = await o.engine.signObject({ typ: MANIFEST_TYP, manifest: sha256Of(bytes) });
    if (signature) zip.addBuffer(Buffer.from(signature, 'utf8'), MANIFEST_SIGNATURE_FILE, { mtime });
    zip.end();
  }

  // yazl's output is a stream pulled by the socket, which paces the whole chain above it.
  const output = zip.outputStream as Readable;
  const fail = (err: unknown) => output.destroy(err as Error);
  zip.once('error', fail);
  build().catch(fail);
  return output;
}
