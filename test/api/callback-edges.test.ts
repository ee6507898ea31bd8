// The callback doors at their edges, through the real server: every malformed ticket on every
// method gets the one 404 an unknown ticket gets (API.md §7), and a body over the cap that is
// still being sent gets a 413 its sender can read (here and on the REST answer door).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_HEADERS } from '../../src/http/callback-pages.ts';
import { DRAIN_LIMITS } from '../../src/http/errors.ts';
import { type ServerProcess, spawnServer } from '../support/processes.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const CALLBACK = '/api/interactions/callback';
/** The type, and every header the callback doors promise (API.md §7). */
const HEADERS_THAT_MATTER = ['content-type', ...Object.keys(CALLBACK_HEADERS).map((h) => h.toLowerCase())];

let t: TestServer;
let port: number;

beforeAll(async () => {
  t = await startServer({ store: 'memory', env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000' } });
  port = Number(new URL(await t.listen()).port);
});
afterAll(async () => {
  await t.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request exactly as written (no client normalises `%2e%2e` or a trailing slash away). */
function raw(method: string, target: string, body = ''): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', reject);
    sock.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    const length = body
      ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
      : '';
    sock.write(`${method} ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${length}\r\n${body}`);
  });
}

async function askExternal(): Promise<{ id: string; ticket: string }> {
  const r = await t.server.inject({
    method: 'POST',
    url: '/graphql',
    headers: { ...auth('agent'), 'content-type': 'application/json' },
    payload: {
      query:
        'mutation { askUser(input: {text: "Sign", format: EXTERNAL, link: "https://s.example/?cb={callback_url}"}, holdSeconds: 0) { question { id } callbackUrl } }',
    },
  });
  const d = r.json().data.askUser;
  return { id: d.question.id, ticket: String(d.callbackUrl).split('/').at(-1)! };
}

describe('the uniform 404 of the callback doors', () => {
  const MALFORMED = [
    `${CALLBACK}/${'A'.repeat(101)}`, // one past the router's parameter limit (was a 414)
    `${CALLBACK}/${'A'.repeat(8000)}`,
    `${CALLBACK}/%ff%fe%00`, // not decodable (was a 400 FST_ERR_BAD_URL)
    `${CALLBACK}/%2e%2e`,
    `${CALLBACK}/..`,
    `${CALLBACK}/%2e%2e%2f%2e%2e%2fhealth`,
    `${CALLBACK}/${'A'.repeat(43)}/`, // a trailing slash
    `${CALLBACK}/`,
    CALLBACK,
    `${CALLBACK}/a/b`,
  ];
  const UNKNOWN = `${CALLBACK}/${'A'.repeat(43)}`;

  it.each(MALFORMED)('GET and HEAD of %s get the 404 page with the callback headers', async (target) => {
    const reference = await raw('GET', UNKNOWN);
    expect(reference.status).toBe(404);
    expect(reference.body).toContain('Not found');
    for (const method of ['GET', 'HEAD']) {
      const r = await raw(method, target);
      expect(r.status, method).toBe(404);
      expect(r.body, method).toBe(method === 'GET' ? reference.body : '');
      for (const h of HEADERS_THAT_MATTER) expect(r.headers[h], `${method} ${h}`).toBe(reference.headers[h]);
    }
  });

  it.each(MALFORMED)('POST, PUT, DELETE and PATCH of %s get the JSON 404', async (target) => {
    const reference = await raw('POST', UNKNOWN, '{}');
    expect(reference.body).toBe('{"error":"not found","code":"NOT_FOUND"}');
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await raw(method, target, '{}');
      expect(r.status, method).toBe(404);
      expect(r.body, method).toBe(reference.body);
      for (const h of HEADERS_THAT_MATTER) expect(r.headers[h], `${method} ${h}`).toBe(reference.headers[h]);
    }
  });

  it('a ticket of exactly the 100 characters the router used to allow is the same 404', async () => {
    const r = await raw('GET', `${CALLBACK}/${'A'.repeat(100)}`);
    expect(r.status).toBe(404);
    expect(r.body).toBe((await raw('GET', UNKNOWN)).body);
  });

  it('other methods on a real ticket change nothing', async () => {
    const q = await askExternal();
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      expect((await raw(method, `${CALLBACK}/${q.ticket}`, '{"a":1}')).status).toBe(404);
    }
    const page = await raw('GET', `${CALLBACK}/${q.ticket}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Confirm');
  });

  it('an undecodable path elsewhere is a clean 400, not the router message', async () => {
    const r = await raw('GET', '/api/interactions/%ff%fe%00/answer');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ error: 'the request path is not valid', code: 'BAD_USER_INPUT' });
  });
});

/** A body sent chunked (no Content-Length), as a client streaming it would. */
function streamOf(total: number, chunk = 16 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x61));
    },
  });
}

// In its own process, as in production: in one process the client's writes and the server's
// reads take turns, which hides a server that closes the socket mid-upload.
describe('a body over the cap, sent chunked by fetch to a server process', () => {
  const CAP = 65_536;
  const KEY = 'edge-ops-key-00000000001';
  let srv: ServerProcess;
  beforeAll(async () => {
    srv = await spawnServer({
      INTERACTIONS_API_KEYS: JSON.stringify([{ id: 'ops', key: KEY, roles: ['operator'] }]),
      INTERACTIONS_CALLBACK_MAX_BODY_BYTES: String(CAP),
      INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.kill();
  });

  const post = (path: string, size: number, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body: streamOf(size),
      duplex: 'half',
    } as RequestInit);

  // One past the cap, and far past it (the upload then outlasts the moment the answer is ready).
  const SIZES = [CAP + 1, CAP * 64];

  it.each(SIZES)('the callback door answers %i bytes with a readable 413', async (size) => {
    const r = await post(`${CALLBACK}/${'A'.repeat(43)}`, size);
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ error: 'request body is too large', code: 'PAYLOAD_TOO_LARGE' });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it.each(SIZES)('the REST answer door answers %i bytes with a readable 413', async (size) => {
    const r = await post('/api/interactions/any-id/answer', size, { authorization: `Bearer ${KEY}` });
    expect(r.status).toBe(413);
    expect((await r.json()).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a sender that goes on past the drain bound is cut off there', async () => {
    const { port: p } = new URL(srv.url);
    const { sent, response } = await new Promise<{ sent: number; response: string }>((resolve) => {
      const sock = net.connect({ host: '127.0.0.1', port: Number(p) });
      let response = '';
      let sent = 0;
      const chunk = Buffer.from(`10000\r\n${'a'.repeat(0x10000)}\r\n`);
      const pump = (): void => {
        // Never ends its body: only the server's bound can end this upload.
        while (!sock.destroyed) {
          sent += 0x10000; // counted when handed over: a write that fills the buffer still goes out
          if (!sock.write(chunk)) break;
        }
      };
      sock.on('data', (d) => {
        response += d.toString('latin1');
      });
      sock.on('drain', pump);
      sock.on('error', () => {});
      sock.on('close', () => resolve({ sent, response }));
      sock.write(
        `POST ${CALLBACK}/${'A'.repeat(43)} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      pump();
    });
    // The 413 goes out at the bound, but a client still writing may see the reset before it.
    expect(['', 'HTTP/1.1 413 Payload Too Large']).toContain(response.split('\r\n')[0]);
    expect(sent).toBeGreaterThan(DRAIN_LIMITS.bytes);
    // Cut near the bound (socket buffers aside), not left to run to the request timeout.
    expect(sent).toBeLessThan(DRAIN_LIMITS.bytes + 32 * 1024 * 1024);
  }, 30_000);

  it('a body of exactly the cap is read and judged on its content, not its size', async () => {
    const r = await post('/api/interactions/any-id/answer', CAP, { authorization: `Bearer ${KEY}` });
    expect(r.status).toBe(400);
    expect((await r.json()).code).toBe('BAD_USER_INPUT');
  });
});
