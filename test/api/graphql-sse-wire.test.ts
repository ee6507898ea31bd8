// A shared subscription's SSE on /graphql over a real socket, through Fastify's reply (its hooks
// and headers) to the frames sse-body.ts writes with res.write: HTTP/1.1 gets Node's chunks,
// HTTP/1.0 the bare stream; a subscriber that stops reading while 500 large questions are
// asked still gets every ASKED, in order, once it reads again; one that leaves is forgotten.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT } from '../support/engines.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

const FEED = 'subscription { pendingQuestions { type questions { id text } } }';

/** A raw subscription request; its bytes are kept, and `until` awaits a condition on their tail. */
function subscribe(port: number, version: '1.0' | '1.1') {
  const path = `/graphql?query=${encodeURIComponent(FEED)}`;
  const socket: Socket = connect(port, '127.0.0.1', () =>
    socket.write(
      `GET ${path} HTTP/${version}\r\nHost: x\r\nAuthorization: Bearer ${KEYS.ops}\r\nAccept: text/event-stream\r\n\r\n`,
    ),
  );
  const chunks: Buffer[] = [];
  let waiter: (() => void) | null = null;
  socket.on('data', (c: Buffer) => {
    chunks.push(c);
    waiter?.();
  });
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    socket,
    closed,
    text: () => Buffer.concat(chunks).toString('utf8'),
    async until(ok: (tail: string) => boolean, tailBytes = 64 * 1024): Promise<void> {
      for (;;) {
        let i = chunks.length;
        let got = 0;
        while (i > 0 && got < tailBytes) got += chunks[--i]!.length;
        if (ok(Buffer.concat(chunks.slice(i)).toString('utf8'))) return;
        await new Promise<void>((r) => {
          waiter = r;
        });
        waiter = null;
      }
    },
  };
}

/** The SSE frames of an HTTP/1.1 chunked body, each chunk checked to be exactly one frame. */
function chunkedFrames(body: string): string[] {
  const frames: string[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) return frames;
    const size = Number.parseInt(body.slice(at, eol), 16);
    if (size === 0) return frames;
    const frame = body.slice(eol + 2, eol + 2 + size);
    frames.push(frame);
    expect(body.slice(eol + 2 + size, eol + 4 + size)).toBe('\r\n');
    at = eol + 4 + size;
  }
}

describe('a shared subscription over a real socket', () => {
  let t: TestServer;
  let port: number;

  beforeAll(async () => {
    t = await startServer({ store: 'redis' });
    port = Number(new URL(await t.listen()).port);
  });
  afterAll(async () => {
    await t.close();
  });
  /** The engine's live feeds (the server's engine is the one createInteractions made). */
  const feeds = () => (t.server.engine as unknown as { feedCount(): number }).feedCount();
  /** Until the engine has `n` feeds: a stream's feed ends a few turns after its socket closed. */
  const feedsBecome = async (n: number): Promise<void> => {
    while (feeds() !== n) await new Promise((r) => setImmediate(r));
  };

  it('HTTP/1.1: Fastify’s headers, then one chunk per frame; HTTP/1.0: the same frames unchunked', async () => {
    const v11 = subscribe(port, '1.1');
    const v10 = subscribe(port, '1.0');
    try {
      for (const c of [v11, v10]) await c.until((t) => t.includes('"SNAPSHOT"'));
      const q = (await t.server.engine.ask(AGENT, { text: 'on the wire' }, { holdSeconds: 0 })).question;
      for (const c of [v11, v10]) await c.until((t) => t.includes(q.id));
      const asked = `event: next\ndata: ${JSON.stringify({
        data: { pendingQuestions: { type: 'ASKED', questions: [{ id: q.id, text: 'on the wire' }] } },
      })}\n\n`;
      for (const c of [v11, v10]) {
        const [head, body] = [
          c.text().split('\r\n\r\n')[0]!,
          c.text().slice(c.text().indexOf('\r\n\r\n') + 4),
        ];
        expect(head).toMatch(/content-type: text\/event-stream/i);
        // Set by onRequest hooks: the reply still went through Fastify.
        expect(head).toMatch(/x-content-type-options: nosniff/i);
        if (c === v11) {
          expect(head).toMatch(/^HTTP\/1\.1 200 /);
          expect(head).toMatch(/transfer-encoding: chunked/i);
          const frames = chunkedFrames(body);
          expect(frames[0]).toBe(':\n\n');
          expect(frames[1]).toMatch(/^event: next\ndata: \{"data":\{"pendingQuestions":\{"type":"SNAPSHOT"/);
          expect(frames.at(-1)).toBe(asked);
        } else {
          expect(head).toMatch(/^HTTP\/1\.1 200 /);
          expect(head).not.toMatch(/transfer-encoding/i);
          expect(
            body.startsWith(':\n\nevent: next\ndata: {"data":{"pendingQuestions":{"type":"SNAPSHOT"'),
          ).toBe(true);
          expect(body.endsWith(`\n\n${asked}`)).toBe(true);
        }
      }
    } finally {
      v11.socket.destroy();
      v10.socket.destroy();
    }
  });

  it('a subscriber that stops reading gets every ASKED in order once it reads again; one that leaves is forgotten', async () => {
    await feedsBecome(0); // the first test's streams
    const slow = subscribe(port, '1.1');
    const gone = subscribe(port, '1.1');
    for (const c of [slow, gone]) await c.until((t) => t.includes('"SNAPSHOT"'));
    expect(feeds()).toBe(2);
    gone.socket.destroy();
    slow.socket.pause();
    // 500 × 8 KB (4 MB) while it reads nothing: more than the sockets buffer, fewer than the
    // feed's 1,000-event queue (beyond it a slow reader is resynced with a fresh SNAPSHOT).
    const pad = 'x'.repeat(8_000);
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) {
      ids.push((await t.server.engine.ask(AGENT, { text: `${i} ${pad}` }, { holdSeconds: 0 })).question.id);
    }
    await gone.closed;
    slow.socket.resume();
    await slow.until((tail) => tail.includes(ids.at(-1)!));
    const seen = [...slow.text().matchAll(/"type":"ASKED","questions":\[\{"id":"([^"]+)"/g)].map((m) => m[1]);
    expect(seen).toEqual(ids);
    expect(slow.text()).not.toMatch(/"SNAPSHOT"[\s\S]*"SNAPSHOT"/);
    slow.socket.destroy();
    await slow.closed;
    // Both feeds end with their streams.
    await feedsBecome(0);
  });
});
