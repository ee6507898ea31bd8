// INTERACTIONS_METRICS_PORT: /metrics on a listener of its own, with no key, for a scraper on
// an internal network. Plain node:http: it serves one path and nothing else.
import { createServer, type Server } from 'node:http';
import type { Metrics } from './metrics.ts';

/**
 * `headers` go on every response (the security headers the main port sends: a scrape target is
 * one more door).
 */
export function createMetricsListener(
  metrics: Metrics,
  onError: (err: unknown) => void,
  headers: Readonly<Record<string, string>> = {},
): Server {
  return createServer((req, res) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        onError(err);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
}

/** Listens on host:port; resolves with the base URL. */
export function listenOn(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolve(`http://${host.includes(':') ? `[${host}]` : host}:${actual}`);
    });
  });
}
