// A receiver that answers every request 200 with `content-length` claiming 512 MiB (or, chunked,
// with no length at all) and then streams without end (until 512 MiB, or until the caller hangs up). It records how many bytes
// it handed to each connection before that connection closed: an upper bound on what the caller
// read (plus what the kernel's socket buffers held, a few MiB on loopback).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CLAIMED_BYTES = 512 * 1024 * 1024;

export interface Flood {
  url: string;
  /** Resolves with the bytes written to the `n`th request (0-based) once its connection closed. */
  written(n: number): Promise<number>;
  close(): Promise<void>;
}

export interface FloodOptions {
  /** No `content-length`: the body is chunked, so only what arrives can tell the caller it is large. */
  chunked?: boolean;
}

export async function startFlood(
  body: Buffer = Buffer.alloc(64 * 1024, 0x20),
  options: FloodOptions = {},
): Promise<Flood> {
  // One deferred count per request, made by whichever comes first: the request or the question.
  const counts: { promise: Promise<number>; resolve(n: number): void }[] = [];
  const countOf = (n: number) => {
    if (!counts[n]) {
      let resolve!: (v: number) => void;
      const promise = new Promise<number>((r) => {
        resolve = r;
      });
      counts[n] = { promise, resolve };
    }
    return counts[n];
  };
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    const count = countOf(requests++);
    let written = 0;
    let open = true;
    res.on('close', () => {
      open = false;
      count.resolve(written);
    });
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(options.chunked ? {} : { 'content-length': String(CLAIMED_BYTES) }),
    });
    const pump = () => {
      while (open && written + body.length <= CLAIMED_BYTES) {
        written += body.length;
        if (!res.write(body)) {
          res.once('drain', pump);
          return;
        }
      }
      if (open) res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: (n) => countOf(n).promise,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
