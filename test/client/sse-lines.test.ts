// The fetch the inbox and the SDK hand to graphql-sse: a message whose bytes are complete is
// delivered at once, even when the chunk that completed it goes on into the next message
// (graphql-sse 2.6 alone keeps it until some chunk ends on a line break).
import { createClient } from 'graphql-sse';
import { describe, expect, it } from 'vitest';
import { lineAlignedFetch, wholeLines } from '../../src/client/sse-lines.ts';

const enc = new TextEncoder();
const frame = (n: number) => `event: next\ndata: {"data":{"n":${n},"pad":"${'x'.repeat(200)}"}}\n\n`;

/** A fetch whose one response body is fed by hand. */
function handFedFetch() {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      feed = c;
    },
  });
  const fetchFn = async () =>
    new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  return { fetchFn, push: (text: string) => feed.enqueue(enc.encode(text)), end: () => feed.close() };
}

function subscribeWith(fetchFn: typeof fetch) {
  const got: number[] = [];
  const waiters: (() => void)[] = [];
  const client = createClient({ url: 'http://127.0.0.1:9/graphql', fetchFn, retryAttempts: 0 });
  client.subscribe<{ n: number }>(
    { query: 'subscription { n }' },
    {
      next: (r) => {
        got.push(r.data!.n);
        for (const w of waiters.splice(0)) w();
      },
      error: () => {},
      complete: () => {},
    },
  );
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => (got.length >= count ? resolve() : waiters.push(check));
      check();
    });
  return { got, until, dispose: () => client.dispose() };
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) out.push(c);
  return out;
}

describe('lineAlignedFetch', () => {
  it('delivers a message as soon as its bytes are complete, when the chunk goes on mid-line', async () => {
    const fed = handFedFetch();
    const sub = subscribeWith(lineAlignedFetch(fed.fetchFn) as typeof fetch);
    const one = frame(1);
    const two = frame(2);
    // The first message whole plus half of the second: no chunk ends on a line break.
    fed.push(one + two.slice(0, 40));
    await sub.until(1);
    expect(sub.got).toEqual([1]);
    fed.push(two.slice(40, 100));
    fed.push(two.slice(100));
    await sub.until(2);
    expect(sub.got).toEqual([1, 2]);
    sub.dispose();
    fed.end();
  });

  it('leaves a refused response as it is', async () => {
    const refused = new Response('{"errors":[]}', {
      status: 401,
      headers: { 'content-type': 'application/json' },
    });
    const res = await lineAlignedFetch(async () => refused)('http://x/graphql', {});
    expect(res).toBe(refused);
  });
});

describe('wholeLines', () => {
  it('cuts after the last line break, joins a long line once, and keeps every byte in order', async () => {
    const text = `${frame(1)}event: next\ndata: ${'y'.repeat(5000)}\n\n${frame(3)}`;
    const bytes = enc.encode(text);
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 97) c.enqueue(bytes.subarray(i, i + 97));
        c.close();
      },
    });
    const chunks = await collect(source.pipeThrough(wholeLines()));
    expect(new TextDecoder().decode(Buffer.concat(chunks))).toBe(text);
    for (const c of chunks) expect(c[c.length - 1]).toBe(10);
    // The 5,000-byte line crosses about 50 input chunks but comes out in one.
    expect(chunks.some((c) => c.length > 5000)).toBe(true);
  });

  it('passes on a tail without a final line break when the stream ends', async () => {
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode('data: a\n\ndata: b'));
        c.close();
      },
    });
    const chunks = await collect(source.pipeThrough(wholeLines()));
    expect(chunks.map((c) => new TextDecoder().decode(c))).toEqual(['data: a\n\n', 'data: b']);
  });
});
