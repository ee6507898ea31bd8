// Helmet's headers on every door, including the answers the server gives before any route runs
// (the 404s, a refused key) and the responses that are streams (the REST feed, GraphQL over SSE,
// the graphql-sse stream, /mcp). They are worked out once at start (src/http/security-headers.ts).
// Strict-Transport-Security only on a request that came over https (through a trusted proxy).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifestSettings } from '../../src/app/config.ts';
import { helmetHeaders, securityHeaders } from '../../src/http/security-headers.ts';
import { manifestDir } from '../support/channel-server.ts';
import { type HttpResponse, httpRequest } from '../support/processes.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

let t: TestServer;
let url: string;
let h: Readonly<Record<string, string>>;
beforeAll(async () => {
  const manifest = await loadManifestSettings(
    { T_TOKEN: 'xoxb-x', T_SIGNING: 'signing' },
    manifestDir(
      'channels:\n  ops-slack:\n    plugin: slack\n    config: { botTokenEnv: T_TOKEN, signingSecretEnv: T_SIGNING, defaultRecipient: C0123456789, apiUrl: "http://127.0.0.1:9/" }\n',
    ),
  );
  t = await startServer({ store: 'memory', plugins: { manifest, metrics: true } });
  url = await t.listen();
  // What every response carries, over plain http too.
  h = (await securityHeaders()).always;
});
afterAll(async () => {
  await t.close();
});

/** Every helmet header, as helmet sets it (`except`: those the door sets stricter itself). */
function expectHelmet(headers: Headers, what: string, except: readonly string[] = []): void {
  for (const [name, value] of Object.entries(h)) {
    if (except.includes(name)) continue;
    expect(headers.get(name), `${what}: ${name}`).toBe(value);
  }
}

/** A stream's head: status and headers, then the connection is dropped. */
async function head(path: string, init: Parameters<typeof httpRequest>[1]): Promise<HttpResponse> {
  const controller = new AbortController();
  const res = await httpRequest(`${url}${path}`, { ...init, signal: controller.signal });
  controller.abort();
  await res.body.cancel().catch(() => {});
  return res;
}

describe('security headers', () => {
  it('are helmet defaults without CSP, computed once', async () => {
    expect(await helmetHeaders()).toMatchObject({
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
    });
    expect(Object.keys(h)).not.toContain('content-security-policy');
    expect(Object.keys(h)).not.toContain('content-type');
    expect(Object.keys(h)).not.toContain('strict-transport-security');
    expect((await securityHeaders()).overHttps).toEqual({
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    });
  });

  it('are on every response, and the callback doors override what they set stricter', async () => {
    const responses = await Promise.all([
      t.server.inject({ method: 'GET', url: '/health' }),
      t.server.inject({ method: 'GET', url: '/no/such/path' }),
      t.server.inject({ method: 'POST', url: '/graphql', payload: { query: '{ __typename }' } }),
      t.server.inject({ method: 'POST', url: `/api/interactions/callback/${'A'.repeat(43)}` }),
    ]);
    for (const [i, r] of responses.entries()) {
      for (const [name, value] of Object.entries(h)) {
        // The callback door's own X-Frame-Options (DENY) replaces helmet's.
        if (i === 3 && name === 'x-frame-options') continue;
        expect(r.headers[name], name).toBe(value);
      }
    }
    expect(responses[3]!.statusCode).toBe(404);
    expect(responses[3]!.headers['x-frame-options']).toBe('DENY');
  });
});

describe('security headers, door by door over a real socket', () => {
  it('the REST stream (GET /api/interactions/stream)', async () => {
    const res = await head('/api/interactions/stream', {
      headers: { ...auth('ops'), accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expectHelmet(res.headers, 'REST stream');
    // Its own headers stay.
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
  });

  it('the REST stream refused (401) and the REST answer door', async () => {
    const refused = await httpRequest(`${url}/api/interactions/stream`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(refused.status).toBe(401);
    expectHelmet(refused.headers, 'REST stream 401');
    const answer = await httpRequest(`${url}/api/interactions/nope/answer`, {
      method: 'POST',
      headers: { ...auth('ops'), 'content-type': 'application/json' },
      body: '{"answer":"x"}',
    });
    expect(answer.status).toBe(404);
    expectHelmet(answer.headers, 'REST answer');
  });

  it('a GraphQL subscription over SSE on /graphql', async () => {
    const res = await head('/graphql', {
      method: 'POST',
      headers: { ...auth('ops'), 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { pendingQuestions { type } }' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expectHelmet(res.headers, 'GraphQL SSE');
  });

  it('the graphql-sse single-connection stream: reservation, operation and the stream', async () => {
    const reserved = await httpRequest(`${url}/graphql/stream`, { method: 'PUT', headers: auth('ops') });
    expect(reserved.status).toBe(201);
    expectHelmet(reserved.headers, 'graphql-sse PUT');
    const token = (await reserved.text()).trim();
    const stream = await head('/graphql/stream', {
      headers: { ...auth('ops'), accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
    });
    expect(stream.status).toBe(200);
    expectHelmet(stream.headers, 'graphql-sse GET');
    const op = await httpRequest(`${url}/graphql/stream`, {
      method: 'POST',
      headers: { ...auth('ops'), 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
      body: JSON.stringify({ query: '{ __typename }', extensions: { operationId: 'op1' } }),
    });
    expect(op.status).toBeGreaterThanOrEqual(200);
    expectHelmet(op.headers, 'graphql-sse POST');
  });

  it('/mcp, a JSON-RPC call answered as an event stream or as JSON, and refused without a key', async () => {
    const initialize = (meta?: Record<string, unknown>) =>
      head('/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          authorization: `Bearer ${KEYS.agent}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
            ...(meta ? { _meta: meta } : {}),
          },
        }),
      });
    // A call that gave a progress token is streamed (progress may come before its result).
    const streamed = await initialize({ progressToken: 1 });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expectHelmet(streamed.headers, '/mcp stream');
    // Without one it is a single JSON body.
    const res = await initialize();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectHelmet(res.headers, '/mcp');
    const refused = await httpRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expectHelmet(refused.headers, '/mcp 401');
  });

  it('the channel inbound door: a refused signature and an unknown channel', async () => {
    const refused = await httpRequest(`${url}/api/interactions/channels/ops-slack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payload=%7B%7D',
    });
    expect(refused.status).toBe(401);
    expectHelmet(refused.headers, 'channel door 401');
    const unknown = await httpRequest(`${url}/api/interactions/channels/nope`, { method: 'POST', body: '' });
    expect(unknown.status).toBe(404);
    expectHelmet(unknown.headers, 'channel door 404', ['x-frame-options']);
    expect(unknown.headers.get('x-frame-options')).toBe('DENY');
  });

  it('the inbox page, /metrics, /ready and a 404', async () => {
    for (const [path, headers, status] of [
      ['/', {}, 200],
      ['/metrics', auth('admin'), 200],
      ['/ready', {}, 200],
      ['/no/such/path', {}, 404],
    ] as const) {
      const res = await httpRequest(`${url}${path}`, { headers });
      expect(res.status, path).toBe(status);
      await res.text();
      // The inbox page forbids framing altogether (DENY), stricter than helmet's SAMEORIGIN.
      expectHelmet(res.headers, path, path === '/' ? ['x-frame-options'] : []);
      if (path === '/') expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });
});

describe('Strict-Transport-Security: only over https', () => {
  const HSTS = 'strict-transport-security';
  let behindProxy: TestServer;
  beforeAll(async () => {
    behindProxy = await startServer({ store: 'memory', env: { INTERACTIONS_TRUST_PROXY_HOPS: '1' } });
  });
  afterAll(async () => {
    await behindProxy.close();
  });

  it('is not sent over plain http, whatever an untrusted X-Forwarded-Proto says', async () => {
    const plain = await httpRequest(`${url}/health`, {});
    expect(plain.status).toBe(200);
    expect(plain.headers.get(HSTS)).toBeNull();
    // No proxy is trusted here: the header is anyone's to forge.
    const forged = await t.server.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(forged.headers[HSTS]).toBeUndefined();
  });

  it('is sent when a trusted proxy says the request came over https, on errors too', async () => {
    const value = (await securityHeaders()).overHttps[HSTS];
    expect(value).toBe('max-age=31536000; includeSubDomains');
    for (const path of ['/health', '/no/such/path']) {
      const https = await behindProxy.server.inject({
        method: 'GET',
        url: path,
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(https.headers[HSTS], path).toBe(value);
      const http = await behindProxy.server.inject({
        method: 'GET',
        url: path,
        headers: { 'x-forwarded-proto': 'http' },
      });
      expect(http.headers[HSTS], path).toBeUndefined();
    }
    const none = await behindProxy.server.inject({ method: 'GET', url: '/health' });
    expect(none.headers[HSTS]).toBeUndefined();
  });
});
