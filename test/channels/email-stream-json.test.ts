// Postmark's JSON read as a stream with attachment bodies dropped (stream-json.ts): whatever the
// JSON and however it is cut into chunks, the result is JSON.parse's with `Attachments[].Content`
// and `RawEmail` emptied, and nothing else changed; past the cap it is 413, not JSON it is 400.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonRefused, readJsonDropping } from '../../src/channels/email/stream-json.ts';

/** `bytes` as a stream cut at the given points. */
function chunked(bytes: Buffer, cuts: number[]): Readable {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    parts.push(bytes.subarray(from, c));
    from = c;
  }
  return Readable.from(parts.filter((p) => p.length > 0));
}

const text = fc.string({ maxLength: 40, unit: 'binary' });
const attachment = fc.record({
  Name: text,
  Content: fc.string({ maxLength: 200, unit: 'binary' }),
  ContentType: text,
  Nested: fc.dictionary(text, text, { maxKeys: 2 }),
});
const message = fc.record({
  From: text,
  Subject: text,
  TextBody: text,
  Content: text,
  RawEmail: fc.option(text, { nil: undefined }),
  Headers: fc.array(fc.record({ Name: text, Value: text }), { maxLength: 3 }),
  Attachments: fc.array(attachment, { maxLength: 3 }),
  Other: fc.jsonValue({ maxDepth: 3 }),
});

function expected(m: Record<string, unknown>): unknown {
  const copy = JSON.parse(JSON.stringify(m)) as Record<string, unknown>;
  if (typeof copy.RawEmail === 'string') copy.RawEmail = '';
  for (const a of copy.Attachments as Record<string, unknown>[]) a.Content = '';
  return copy;
}

describe('readJsonDropping', () => {
  it('is JSON.parse with the attachment bodies emptied, for any chunking (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        message,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        async (m, cuts, pretty) => {
          const bytes = Buffer.from(JSON.stringify(m, null, pretty ? 2 : undefined));
          const got = await readJsonDropping(chunked(bytes, cuts), { maxBytes: 1e9 });
          expect(got).toEqual(expected(m));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a 5 MB attachment is not kept; over maxBytes is 413; malformed is 400', async () => {
    const big = { Subject: 's', Attachments: [{ Name: 'p.jpg', Content: 'A'.repeat(5 * 1024 * 1024) }] };
    const bytes = Buffer.from(JSON.stringify(big));
    expect(await readJsonDropping(chunked(bytes, [1000, 70_000]), { maxBytes: bytes.length })).toEqual({
      Subject: 's',
      Attachments: [{ Name: 'p.jpg', Content: '' }],
    });
    await expect(readJsonDropping(chunked(bytes, []), { maxBytes: bytes.length - 1 })).rejects.toMatchObject({
      status: 413,
    });
    // A string outside an attachment's Content is kept, so it counts against the kept cap.
    const kept = Buffer.from(JSON.stringify({ TextBody: 'x'.repeat(9 * 1024 * 1024) }));
    await expect(readJsonDropping(chunked(kept, []), { maxBytes: 1e9 })).rejects.toBeInstanceOf(JsonRefused);
    await expect(
      readJsonDropping(chunked(Buffer.from('{"a":'), []), { maxBytes: 1e9 }),
    ).rejects.toMatchObject({
      status: 400,
    });
  });
});
