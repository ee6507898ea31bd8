// A loopback HTTP server that records every request (raw body and headers) and answers with a
// status the test chooses. Waiters are registered before requests arrive, so no polling.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Resolves with the first request (already received or not) that `pred` accepts. */
  waitFor(pred: (r: ReceivedRequest) => boolean): Promise<ReceivedRequest>;
  /** The status for the following requests (default 200). */
  respondWith(status: number): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { pred: (r: ReceivedRequest) => boolean; resolve(r: ReceivedRequest): void }[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(received);
      for (const w of [...waiters]) {
        if (w.pred(received)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(received);
        }
      }
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    waitFor(pred) {
      const found = requests.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    respondWith: (s) => {
      status = s;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
