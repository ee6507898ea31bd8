// Connections at shutdown (src/http/shutdown-sockets.ts), over real sockets: once closing, an
// idle keep-alive connection and one that never sent a request are ended at once, and a
// keep-alive connection whose response ends after closing began is ended as soon as it does.
import { createServer, type ServerResponse } from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createShutdownSockets } from '../../src/http/shutdown-sockets.ts';

const REQUEST = 'GET /hold HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';

describe('shutdown sockets', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(() => {
    for (const s of servers) s.closeAllConnections();
    for (const s of servers) s.close();
  });

  async function serve(onRequest: (res: ServerResponse) => void) {
    const server = createServer((_req, res) => onRequest(res));
    servers.push(server);
    const sockets = createShutdownSockets(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as net.AddressInfo;
    const connect = () =>
      new Promise<net.Socket>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => resolve(s));
      });
    const closed = (s: net.Socket) => new Promise<void>((r) => s.once('close', () => r()));
    return { sockets, connect, closed };
  }

  /** `p`, or a marker if it has not settled within `ms`. */
  function within<T>(p: Promise<T>, ms: number): Promise<T | 'still open'> {
    const bound = new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref());
    return Promise.race([p, bound]);
  }

  it('ends a connection whose response ends after closing began, and an unused one at once', async () => {
    let arrived!: (res: ServerResponse) => void;
    const request = new Promise<ServerResponse>((r) => {
      arrived = r;
    });
    const t = await serve((res) => arrived(res));
    const busy = await t.connect();
    const unused = await t.connect();
    busy.resume();
    unused.resume();
    const busyClosed = t.closed(busy);
    const unusedClosed = t.closed(unused);
    busy.write(REQUEST);
    const held = await request;
    t.sockets.closing();
    expect(await within(unusedClosed, 5000)).toBeUndefined();
    // Its response is still in flight: the connection stays until the response ends.
    expect(busy.destroyed).toBe(false);
    held.end('done');
    expect(await within(busyClosed, 5000)).toBeUndefined();
  });
});
