// Postmark's inbound JSON read as a stream (API.md §9.1): attachments travel inside it as base64
// strings (`Attachments[].Content`, and the whole message in `RawEmail` when that option is on),
// so a reply with a photo is megabytes of JSON of which a reply needs a few kilobytes. This
// tokenizer copies the JSON as it passes, except the bytes of those string values (written as
// ""), and the copy — bounded — is then parsed as usual. It follows only what it must (strings,
// escapes, nesting, which key a value belongs to); JSON.parse judges the rest. Bytes are scanned
// one by one: `"` and `\` never occur inside a multi-byte UTF-8 character.
import type { Readable } from 'node:stream';

/** The most of the JSON kept once the dropped values are out; more is refused (413). */
export const KEPT_JSON_MAX_BYTES = 8 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const KEY_MAX_CHARS = 64;

interface Frame {
  array: boolean;
  /** In an object: the next string is a key. */
  expectKey: boolean;
  key: string;
}

export class JsonRefused extends Error {
  constructor(readonly status: 400 | 413) {
    super(status === 413 ? 'the message is over the provider maximum' : 'not JSON');
  }
}

/** Whether the string value about to start is one to drop (by the keys above it). */
function dropped(stack: readonly Frame[]): boolean {
  const top = stack[stack.length - 1];
  if (!top || top.array || top.expectKey) return false;
  if (stack.length === 1) return top.key === 'RawEmail';
  const parent = stack[stack.length - 2];
  const grand = stack[stack.length - 3];
  // { "Attachments": [ { "Content": "…" } ] } at the top level.
  return (
    stack.length === 3 &&
    top.key === 'Content' &&
    parent!.array &&
    grand?.key === 'Attachments' &&
    !grand.array
  );
}

/** The JSON without the dropped values; throws JsonRefused (413 over a cap, 400 not JSON-shaped). */
export async function readJsonDropping(
  body: Readable,
  o: { maxBytes: number; onBytes?(chunk: Buffer): void },
): Promise<unknown> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seen = 0;
  const stack: Frame[] = [];
  let inString = false;
  let escaped = false;
  let dropping = false;
  let isKey = false;
  let key: number[] = [];

  const keep = (chunk: Buffer) => {
    keptBytes += chunk.length;
    if (keptBytes > KEPT_JSON_MAX_BYTES) throw new JsonRefused(413);
    kept.push(chunk);
  };

  for await (const data of body) {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as string);
    seen += chunk.length;
    if (seen > o.maxBytes) throw new JsonRefused(413);
    o.onBytes?.(chunk);
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) {
          inString = false;
          if (dropping) {
            // Resume copying at the closing quote: the value becomes "".
            dropping = false;
            from = i;
          }
          if (isKey) {
            const top = stack[stack.length - 1]!;
            top.key = Buffer.from(key).toString('utf8');
            top.expectKey = false;
          }
          continue;
        }
        if (isKey && key.length < KEY_MAX_CHARS * 4) key.push(b);
        continue;
      }
      if (b === QUOTE) {
        inString = true;
        const top = stack[stack.length - 1];
        isKey = top !== undefined && !top.array && top.expectKey;
        key = [];
        if (!isKey && dropped(stack)) {
          keep(chunk.subarray(from, i + 1));
          dropping = true;
        }
      } else if (b === 0x7b /* { */ || b === 0x5b /* [ */) {
        if (stack.length >= 64) throw new JsonRefused(400);
        stack.push({ array: b === 0x5b, expectKey: b === 0x7b, key: '' });
      } else if (b === 0x7d /* } */ || b === 0x5d /* ] */) {
        stack.pop();
      } else if (b === COMMA) {
        const top = stack[stack.length - 1];
        if (top && !top.array) top.expectKey = true;
      } else if (b === COLON) {
        const top = stack[stack.length - 1];
        if (top) top.expectKey = false;
      }
    }
    if (!dropping) keep(chunk.subarray(from));
  }
  try {
    return JSON.parse(Buffer.concat(kept, keptBytes).toString('utf8'));
  } catch {
    throw new JsonRefused(400);
  }
}
