// HTTP over node:http (undici is not a dependency, so fetch cannot be given a dispatcher with
// enough sockets). Every reply carries when its request was written and when its body ended.
import http from 'node:http';

export interface Reply {
  status: number;
  body: string;
  /** performance.now() just before the request was written. */
  sentAt: number;
  /** performance.now() when the last byte of the body arrived. */
  endedAt: number;
}

export interface SendOptions {
  agent: http.Agent;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export function send(url: string, o: SendOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = { ...o.headers };
    if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
    const req = http.request(url, { method: o.method ?? 'GET', agent: o.agent, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentAt, endedAt: performance.now() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const sentAt = performance.now();
    req.end(o.body);
  });
}

/** Reused connections, as a normal client would keep them. */
export function keepAliveAgent(maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

/** One connection per request and no cap: for holds and streams that each need their own socket. */
export function socketPerRequestAgent(): http.Agent {
  return new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
}
