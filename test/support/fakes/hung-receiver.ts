// A receiver on loopback that takes every request and never answers: the slow endpoint the
// outbox must not stall behind. It counts the requests it holds (waiters are registered before
// they arrive, so no polling); close() cuts every held socket, which ends the callers' fetches.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HungReceiver {
  url: string;
  /** Requests received so far (none was ever answered). */
  received(): number;
  /** Requests still held: received, and their caller has not given up (closed the connection). */
  holding(): number;
  /** Resolves once at least `count` requests arrived. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHungReceiver(): Promise<HungReceiver> {
  const held: ServerResponse[] = [];
  let open = 0;
  const waiting: { count: number; resolve(): void }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    held.push(res);
    open++;
    res.on('close', () => open--);
    for (const w of [...waiting]) {
      if (held.length >= w.count) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => held.length,
    holding: () => open,
    waitFor: (count) =>
      held.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
