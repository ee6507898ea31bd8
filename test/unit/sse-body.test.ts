// The SSE body's direct path (sse-body.ts): results that are ready are pushed in the caller's
// turn, in order with those that come through the iterator; a body above its high-water mark
// takes nothing until it is read; destroying it disarms the ready callback. Piped to a real
// node:http response, it writes the same bytes as the Readable's own pipe, holds back for a
// reader that stops reading, and ends when the client leaves.
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../src/graphql/graphql-js.ts';
import { type DirectResults, sseBody } from '../../src/graphql/sse-body.ts';

/** A source of results, taken directly or through the iterator, as shared-results.ts offers them. */
function source() {
  const ready: (ExecutionResult | 'iterator')[] = [];
  const viaIterator: ExecutionResult[] = [];
  let onReady: (() => void) | null = null;
  let ended = false;
  let returned!: () => void;
  const returnedP = new Promise<void>((r) => {
    returned = r;
  });
  const direct: DirectResults = {
    take() {
      if (ended) return undefined;
      const next = ready[0];
      if (next === undefined) return null;
      if (next === 'iterator') return undefined;
      ready.shift();
      return next;
    },
    onReady(r) {
      onReady = r;
    },
  };
  const iterator: AsyncIterator<ExecutionResult> = {
    async next() {
      if (ready[0] === 'iterator') {
        ready.shift();
        return { done: false, value: viaIterator.shift()! };
      }
      ended = true;
      return { done: true, value: undefined };
    },
    async return() {
      ended = true;
      returned();
      return { done: true, value: undefined };
    },
  };
  return {
    direct,
    iterator,
    armed: () => onReady !== null,
    /** Results not taken yet. */
    waiting: () => ready.length,
    /** Resolves when the body returned the iterator. */
    returned: returnedP,
    /** Queues results and calls the armed callback, as the feed does on an announcement. */
    arrive(...items: (ExecutionResult | { viaIterator: ExecutionResult })[]) {
      for (const item of items) {
        if ('viaIterator' in item) {
          ready.push('iterator');
          viaIterator.push(item.viaIterator);
        } else ready.push(item);
      }
      const r = onReady;
      onReady = null;
      r?.();
    },
    end() {
      ended = true;
      const r = onReady;
      onReady = null;
      r?.();
    },
  };
}

const result = (n: number): ExecutionResult => ({ data: { n } });

function chunksOf(body: Readable): string[] {
  const out: string[] = [];
  body.on('data', (c: Buffer) => out.push(c.toString()));
  return out;
}

const frame = (n: number) => `event: next\ndata: {"data":{"n":${n}}}\n\n`;
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('sseBody with direct results', () => {
  it('pushes ready results in the caller’s turn, and keeps the order with results from the iterator', async () => {
    const s = source();
    const body = sseBody(s.iterator, s.direct);
    const chunks = chunksOf(body);
    await tick();
    expect(s.armed()).toBe(true);
    s.arrive(result(1), result(2));
    // Flowing with an empty buffer: written before arrive() returned.
    expect(chunks.slice(1)).toEqual([frame(1), frame(2)]);
    s.arrive(result(3), { viaIterator: result(4) }, result(5));
    await tick();
    expect(chunks.slice(1)).toEqual([1, 2, 3, 4, 5].map(frame));
    s.end();
    await tick();
    expect(chunks.at(-1)).toBe('event: complete\ndata:\n\n');
    expect(body.readableEnded).toBe(true);
  });

  it('takes nothing while above its high-water mark, and resumes when read', async () => {
    const s = source();
    const body = sseBody(s.iterator, s.direct);
    body.read(0); // a body starts on its first read (or its pipe to a response)
    await tick();
    const big: ExecutionResult = { data: { n: 'x'.repeat(body.readableHighWaterMark) } };
    s.arrive(big, result(2), result(3));
    // One frame over the mark is buffered; the rest wait in the source.
    expect(body.readableLength).toBeGreaterThanOrEqual(body.readableHighWaterMark);
    expect(s.armed()).toBe(false);
    const chunks = chunksOf(body);
    await tick();
    expect(chunks.join('')).toContain(frame(3));
    expect(s.armed()).toBe(true);
  });

  it('destroying the body disarms the ready callback and returns the iterator', async () => {
    const s = source();
    const body = sseBody(s.iterator, s.direct);
    chunksOf(body);
    await tick();
    expect(s.armed()).toBe(true);
    body.destroy();
    await tick();
    expect(s.armed()).toBe(false);
    expect(s.direct.take()).toBeUndefined();
  });
});

/** A node:http server whose every request gets a fresh body of `make`, piped as Fastify does. */
async function serving(make: (path: string) => Readable): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const body = make(req.url ?? '/');
    res.setHeader('content-type', 'text/event-stream');
    body.pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A raw client socket that keeps every byte it receives; `until` awaits a condition on them. */
function rawClient(port: number, request: string) {
  const socket = connect(port, '127.0.0.1', () => socket.write(request));
  const chunks: Buffer[] = [];
  let length = 0;
  let waiter: (() => void) | null = null;
  const ended = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
    waiter?.();
  });
  /** The last `n` bytes received (at least), without joining all of them. */
  const last = (n: number): Buffer => {
    let i = chunks.length;
    let got = 0;
    while (i > 0 && got < n) got += chunks[--i]!.length;
    return Buffer.concat(chunks.slice(i));
  };
  return {
    socket,
    bytes: () => Buffer.concat(chunks),
    ended,
    /** Waits until `ok` holds for the bytes' tail (`tail` bytes: the whole, by default). */
    async until(ok: (text: string) => boolean, tail = Number.POSITIVE_INFINITY): Promise<void> {
      while (!ok(last(Math.min(tail, length)).toString('latin1'))) {
        await new Promise<void>((r) => {
          waiter = r;
        });
        waiter = null;
      }
    },
  };
}

/** The response without its Date header (the only part that differs between two responses). */
const withoutDate = (b: Buffer) => b.toString('latin1').replace(/\r\nDate: [^\r]*/i, '');

describe('sseBody piped to an HTTP response (written with res.write)', () => {
  it('sends the very bytes the ordinary Readable pipe sends, with HTTP/1.1 chunks and with HTTP/1.0', async () => {
    const sources = new Map<string, ReturnType<typeof source>>();
    const bodies = new Map<string, Readable>();
    const server = await serving((path) => {
      const s = source();
      const body = sseBody(s.iterator, s.direct);
      // A body read before its pipe takes the Readable's own path: the output before this change.
      if (path.startsWith('/piped')) body.read(0);
      sources.set(path, s);
      bodies.set(path, body);
      return body;
    });
    try {
      const responses: Record<string, string> = {};
      const flowing: Record<string, boolean | null> = {};
      for (const version of ['1.1', '1.0']) {
        for (const how of ['direct', 'piped']) {
          const path = `/${how}-${version}`;
          const c = rawClient(
            server.port,
            `GET ${path} HTTP/${version}\r\nHost: x\r\nConnection: close\r\n\r\n`,
          );
          await c.until((t) => t.includes(':\n\n'));
          const s = sources.get(path)!;
          // Several frames in one turn (one corked socket), one through the iterator, then the end.
          s.arrive(result(1), result(2), { viaIterator: result(3) }, result(4));
          await c.until((t) => t.includes(frame(4)));
          flowing[path] = bodies.get(path)!.readableFlowing;
          s.end();
          await c.ended;
          responses[path] = withoutDate(c.bytes());
        }
        // Nothing went through the Readable on the direct path: it was never set flowing.
        expect(flowing[`/direct-${version}`]).toBeNull();
        expect(flowing[`/piped-${version}`]).toBe(true);
        expect(responses[`/direct-${version}`]).toBe(responses[`/piped-${version}`]);
      }
      // And the frames are what they should be, framed by Node as each version allows.
      const events = [':\n\n', ...[1, 2, 3, 4].map(frame), 'event: complete\ndata:\n\n'];
      const chunked = events.map((e) => `${Buffer.byteLength(e).toString(16)}\r\n${e}\r\n`).join('');
      expect(responses['/direct-1.1']).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(responses['/direct-1.1']).toContain('Transfer-Encoding: chunked');
      expect(responses['/direct-1.1']!.endsWith(`\r\n\r\n${chunked}0\r\n\r\n`)).toBe(true);
      expect(responses['/direct-1.0']).not.toContain('Transfer-Encoding');
      expect(responses['/direct-1.0']!.endsWith(`\r\n\r\n${events.join('')}`)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a reader that stops reading holds the body back, and still gets every frame in order', async () => {
    const s = source();
    const server = await serving(() => sseBody(s.iterator, s.direct));
    const N = 200;
    const big = (n: number): ExecutionResult => ({ data: { n, pad: 'x'.repeat(64 * 1024) } });
    try {
      const c = rawClient(server.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await c.until((t) => t.includes(':\n\n'));
      c.socket.pause();
      // 12.8 MB offered at once: res.write says "full" long before, and the rest waits in the source.
      s.arrive(...Array.from({ length: N }, (_, i) => (i % 10 === 5 ? { viaIterator: big(i) } : big(i))));
      expect(s.waiting()).toBeGreaterThan(N / 2);
      expect(s.armed()).toBe(false);
      c.socket.resume();
      await c.until((t) => t.includes(`"n":${N - 1},`), 70 * 1024);
      const seen = [
        ...c
          .bytes()
          .toString('latin1')
          .matchAll(/"n":(\d+),/g),
      ].map((m) => Number(m[1]));
      expect(seen).toEqual(Array.from({ length: N }, (_, i) => i));
      expect(s.waiting()).toBe(0);
      c.socket.destroy();
    } finally {
      await server.close();
    }
  });

  it('a client that leaves ends its body: the iterator is returned and the ready callback disarmed', async () => {
    const s = source();
    const server = await serving(() => sseBody(s.iterator, s.direct));
    try {
      const c = rawClient(server.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await c.until((t) => t.includes(':\n\n'));
      s.arrive(result(1));
      await c.until((t) => t.includes(frame(1)));
      expect(s.armed()).toBe(true);
      c.socket.destroy();
      await s.returned;
      expect(s.armed()).toBe(false);
      expect(s.direct.take()).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
