// A provider's form post (Mailgun, SendGrid: multipart/form-data; Mailgun also urlencoded) read
// as a stream (API.md §9.1): the whole message up to the provider's own maximum, but only the
// fields a reply needs are kept, each bounded; attachments and every other part are read past and
// dropped, so the request is never held whole. Each byte also goes to `onBytes` (a signature
// over the raw body, a hash) as it passes.
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyInstance } from '@fastify/busboy';

/** The longest value kept of one field; a longer one is cut (a reply's first line is near its start). */
export const FIELD_MAX_BYTES = 2 * 1024 * 1024;

/** Why a form was not read. */
export class FormRefused extends Error {
  constructor(readonly status: 400 | 413) {
    super(status === 413 ? 'the message is over the provider maximum' : 'not a form');
  }
}

export interface FormFields {
  /** The kept fields' bytes as sent (multipart: undecoded; urlencoded: UTF-8 of the decoded value). */
  bytes: Map<string, Buffer>;
  /** Whether a kept field was longer than FIELD_MAX_BYTES (its start is kept). */
  cut: Set<string>;
  /** The name of every part, kept or not. */
  seen: Set<string>;
}

export interface ReadFormOptions {
  contentType: string;
  maxBytes: number;
  keep: ReadonlySet<string>;
  onBytes?(chunk: Buffer): void;
}

/** Counts the bytes that pass and refuses the stream past `maxBytes`. */
function meter(maxBytes: number, onBytes?: (chunk: Buffer) => void): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new FormRefused(413));
      onBytes?.(chunk);
      done(null, chunk);
    },
  });
}

/** A kept part's bytes, up to FIELD_MAX_BYTES (the rest is read past). */
function keepPart(out: FormFields, name: string, stream: Readable): void {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    const room = FIELD_MAX_BYTES - size;
    if (chunk.length > room) out.cut.add(name);
    if (room <= 0) return;
    const part = chunk.subarray(0, room);
    chunks.push(part);
    size += part.length;
  });
  // The first part of a name counts; a repeat is read past.
  stream.on('end', () => {
    if (!out.bytes.has(name)) out.bytes.set(name, Buffer.concat(chunks, size));
  });
}

/**
 * The kept fields of a multipart or urlencoded body; throws FormRefused (400: not such a form,
 * or malformed; 413: over `maxBytes`).
 */
export async function readForm(body: Readable, o: ReadFormOptions): Promise<FormFields> {
  const out: FormFields = { bytes: new Map(), cut: new Set(), seen: new Set() };
  let busboy: BusboyInstance;
  try {
    busboy = Busboy({
      headers: { 'content-type': o.contentType },
      // Every multipart part as a stream of its own bytes: charsets are applied by the reader
      // (SendGrid names them in its `charsets` field), and nothing is buffered by the parser.
      isPartAFile: () => true,
      defCharset: 'utf8',
      limits: { fieldSize: FIELD_MAX_BYTES, fields: 500, parts: 1000, headerPairs: 200, fieldNameSize: 200 },
    });
  } catch {
    throw new FormRefused(400);
  }
  busboy.on('file', (name, stream) => {
    out.seen.add(name);
    if (o.keep.has(name) && !out.bytes.has(name)) keepPart(out, name, stream);
    else stream.resume();
  });
  busboy.on('field', (name, value, _nameCut, valueCut) => {
    out.seen.add(name);
    if (!o.keep.has(name) || out.bytes.has(name)) return;
    out.bytes.set(name, Buffer.from(value, 'utf8'));
    if (valueCut) out.cut.add(name);
  });
  try {
    await pipeline(body, meter(o.maxBytes, o.onBytes), busboy);
  } catch (err) {
    throw err instanceof FormRefused ? err : new FormRefused(400);
  }
  return out;
}
