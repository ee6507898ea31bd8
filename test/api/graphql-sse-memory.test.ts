// Slow SSE consumers cannot grow the server without bound. Ten subscribers that never read
// (distinct-connections mode on /graphql) and ten clients that try to reserve single-connection
// streams and never open them (/graphql/stream, off by default) stay connected while 5,000
// questions are asked; the process's RSS grows by less than RSS_BOUND_MIB. Before the
// single-connection mode was turned off, the same load with ten reserved, never-opened streams
// grew it by 218 MiB (measured here); with it off, by about 53 MiB.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT } from '../support/engines.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const ASKS = 5_000;
const CLIENTS = 10;
/** The bound: the 5,000 questions themselves (~2 KiB each, held by the memory store) plus slack. */
const RSS_BOUND_MIB = 96;
const TEXT = 'x'.repeat(2_000);
const FEED = 'subscription { pendingQuestions { type questions { id text askedBy createdAt } } }';

/** A raw HTTP/1.1 request whose response is never read once its headers arrived. */
function neverReading(port: number, request: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.once('error', reject);
    socket.once('data', (chunk) => {
      expect(chunk.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
      socket.pause(); // from here on nothing is read: the kernel buffer fills, then the server's
      resolve(socket);
    });
  });
}

describe('SSE consumers that never read or never open', () => {
  let t: TestServer;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // One key asks them all: lift its per-key cap (the quota is not what this measures).
    t = await startServer({ store: 'memory', env: { INTERACTIONS_MAX_PENDING_PER_PRINCIPAL: String(ASKS) } });
    port = Number(new URL(await t.listen()).port);
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await t.close();
  });

  it(`keeps RSS growth under ${RSS_BOUND_MIB} MiB over ${ASKS} asks`, async () => {
    const path = `/graphql?query=${encodeURIComponent(FEED)}`;
    for (let i = 0; i < CLIENTS; i++) {
      sockets.push(
        await neverReading(
          port,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.ops}\r\nAccept: text/event-stream\r\n\r\n`,
        ),
      );
      // A reservation that would be kept (and fed) without bound is not made at all.
      const reserved = await t.server.inject({ method: 'PUT', url: '/graphql/stream', headers: auth('ops') });
      expect(reserved.statusCode).toBe(404);
    }
    const before = process.memoryUsage().rss;
    for (let i = 0; i < ASKS; i++) {
      const r = await t.server.engine.ask(AGENT, { text: `${TEXT} ${i}` }, { holdSeconds: 0 });
      expect(r.status).toBe('PENDING');
    }
    const grownMiB = (process.memoryUsage().rss - before) / 2 ** 20;
    expect(grownMiB).toBeLessThan(RSS_BOUND_MIB);
    // The subscribers are still connected (the server neither crashed nor dropped them all).
    expect(sockets.every((s) => !s.destroyed)).toBe(true);
  });
});
