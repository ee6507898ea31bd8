// Slow SSE consumers cannot grow the server without bound. With /graphql/stream on (the
// default), while 5,000 questions are asked: ten subscribers that never read (distinct
// connections on /graphql); on /graphql/stream, for each of three keys, four reservations
// that are never opened and four streams opened but never read, each with an inbox feed
// subscribed. The process's RSS grows by less than RSS_BOUND_MIB: measured here about 115 MiB
// (about 53 MiB of it without any /graphql/stream client); with the 1,000-event cap lifted,
// the same load grew it by 836 MiB.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STREAM_LIMITS } from '../../src/graphql/stream-tokens.ts';
import { AGENT } from '../support/engines.ts';
import { auth, KEYS, startServer, type TestServer, type Who } from '../support/server.ts';

const ASKS = 5_000;
const CLIENTS = 10;
const STREAM_KEYS: Who[] = ['ops', 'admin', 'agent'];
/**
 * The 5,000 questions themselves (~2 KiB each, held by the memory store), plus each of the 24
 * streams' queue up to the 1,000-event cap (~2 KiB an event), plus slack.
 */
const RSS_BOUND_MIB = 160;
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
    t = await startServer({ store: 'memory' });
    port = Number(new URL(await t.listen()).port);
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await t.close();
  });

  const reserve = async (who: Who): Promise<string> => {
    const r = await t.server.inject({ method: 'PUT', url: '/graphql/stream', headers: auth(who) });
    expect(r.statusCode).toBe(201);
    return r.body.trim();
  };
  const subscribe = (who: Who, token: string, operationId: string) =>
    t.server.inject({
      method: 'POST',
      url: '/graphql/stream',
      headers: { ...auth(who), 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
      payload: { query: FEED, extensions: { operationId } },
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
    }
    const unopened: [Who, string][] = [];
    for (const who of STREAM_KEYS) {
      for (let i = 0; i < DEFAULT_STREAM_LIMITS.perKey / 2; i++) {
        const token = await reserve(who);
        expect((await subscribe(who, token, 'feed')).statusCode).toBe(202);
        unopened.push([who, token]);
      }
      for (let i = 0; i < DEFAULT_STREAM_LIMITS.perKey / 2; i++) {
        const token = await reserve(who);
        sockets.push(
          await neverReading(
            port,
            `GET /graphql/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS[who]}\r\nAccept: text/event-stream\r\nX-GraphQL-Event-Stream-Token: ${token}\r\n\r\n`,
          ),
        );
        expect((await subscribe(who, token, 'feed')).statusCode).toBe(202);
      }
    }
    const before = process.memoryUsage().rss;
    for (let i = 0; i < ASKS; i++) {
      const r = await t.server.engine.ask(AGENT, { text: `${TEXT} ${i}` }, { holdSeconds: 0 });
      expect(r.status).toBe('PENDING');
    }
    const grownMiB = (process.memoryUsage().rss - before) / 2 ** 20;
    expect(grownMiB).toBeLessThan(RSS_BOUND_MIB);
    // The never-opened streams hit the cap: their feeds ended and new operations wait for a reader.
    for (const [who, token] of unopened) expect((await subscribe(who, token, 'more')).statusCode).toBe(429);
    // The subscribers are still connected (the server neither crashed nor dropped them all).
    expect(sockets.every((s) => !s.destroyed)).toBe(true);
  });
});
