// The Host check against DNS rebinding (src/http/host-check.ts): a request naming a host that is
// not the server's own is refused with 403 before anything of the route runs, on /mcp always and
// on every door when access control is off or INTERACTIONS_ALLOWED_HOSTS is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.ts';
import {
  HOST_REFUSED_MESSAGE,
  hostAccepter,
  hostCheckSummary,
  hostCheckWarning,
} from '../../src/http/host-check.ts';
import { helmetHeaders } from '../../src/http/security-headers.ts';
import { httpRequest } from '../support/processes.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const ASK = 'mutation { askUser(input: {text: "Rebound?"}, holdSeconds: 0) { status } }';
const MCP_INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

const FOREIGN = [
  'evil.example.com',
  'evil.example.com:4000',
  'localhost.evil.example',
  '127.0.0.1.evil.example',
];
/** Malformed Host values that could read as an own name to a lax parser. */
const MALFORMED = ['evil.example@localhost', 'localhost/x', 'localhost:4000:1', '[::1'];

function gql(t: TestServer, host: string, headers: Record<string, string> = {}) {
  return t.server.inject({
    method: 'POST',
    url: '/graphql',
    headers: { host, 'content-type': 'application/json', ...headers },
    payload: { query: ASK },
  });
}

function mcp(t: TestServer, host: string, headers: Record<string, string> = {}) {
  return t.server.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host, ...MCP_HEADERS, ...headers },
    payload: MCP_INIT,
  });
}

describe('access control off: every door is checked', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({
      store: 'memory',
      env: {
        ACCESS_CONTROL_ENABLE: 'false',
        INTERACTIONS_PUBLIC_BASE_URL: 'https://tai.example.com',
        INTERACTIONS_ALLOWED_HOSTS: 'agents.internal',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a foreign Host on /graphql is 403 with a clear body, and the ask never runs', async () => {
    const headers = await helmetHeaders();
    for (const host of [...FOREIGN, ...MALFORMED]) {
      const r = await gql(t, host);
      expect(r.statusCode, host).toBe(403);
      expect(r.json()).toEqual({ error: HOST_REFUSED_MESSAGE, code: 'FORBIDDEN' });
      expect(r.headers['x-content-type-options']).toBe(headers['x-content-type-options']);
    }
    expect(await t.server.store.countPending()).toBe(0);
  });

  it('a foreign Host on /mcp, the REST stream, the callback door and /health is 403', async () => {
    expect((await mcp(t, 'evil.example.com')).statusCode).toBe(403);
    for (const [method, url] of [
      ['GET', '/api/interactions/stream'],
      ['POST', `/api/interactions/callback/${'A'.repeat(43)}`],
      ['GET', '/health'],
      ['GET', '/'],
    ] as const) {
      const r = await t.server.inject({ method, url, headers: { host: 'evil.example.com' } });
      expect(r.statusCode, url).toBe(403);
    }
  });

  it('own hosts are accepted: loopback names, IP addresses, the public base URL host, the list', async () => {
    for (const host of [
      'localhost',
      'localhost:4000',
      'LOCALHOST:4000',
      'localhost.',
      '127.0.0.1:4000',
      '[::1]:4000',
      '10.1.2.3',
      '[fe80::1]:80',
      'tai.example.com',
      'TAI.example.com:443',
      'agents.internal:8080',
    ]) {
      const r = await gql(t, host);
      expect(r.statusCode, host).toBe(200);
      expect(r.json().data.askUser.status).toBe('PENDING');
      expect((await mcp(t, host)).statusCode, host).toBe(200);
    }
  });
});

describe('access control on, no INTERACTIONS_ALLOWED_HOSTS: /mcp only', () => {
  let t: TestServer;
  let url: string;
  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
    url = await t.listen();
  });
  afterAll(async () => {
    await t.close();
  });

  it('/mcp refuses a foreign Host even with a valid key, and before the key is looked at', async () => {
    const keyed = await mcp(t, 'evil.example.com', auth('agent'));
    expect(keyed.statusCode).toBe(403);
    expect(keyed.json()).toEqual({ error: HOST_REFUSED_MESSAGE, code: 'FORBIDDEN' });
    expect((await mcp(t, 'evil.example.com')).statusCode).toBe(403);
    expect((await mcp(t, 'localhost:4000', auth('agent'))).statusCode).toBe(200);
  });

  it('the MCP conformance probe over a real socket: evil Host and Origin 403, its own host 2xx', async () => {
    const own = new URL(url).host;
    const evil = await httpRequest(`${url}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        authorization: `Bearer ${KEYS.agent}`,
        host: 'evil.example.com',
        origin: 'http://evil.example.com',
      },
      body: MCP_INIT,
    });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'FORBIDDEN' });
    const valid = await httpRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${KEYS.agent}`, host: own, origin: `http://${own}` },
      body: MCP_INIT,
    });
    expect(valid.status).toBe(200);
    await valid.text();
  });

  it('the other doors are not checked: a key is what protects them (a server behind a proxy keeps working)', async () => {
    const r = await gql(t, 'tai.behind-a-proxy.example', auth('agent'));
    expect(r.statusCode).toBe(200);
    expect(r.json().data.askUser.status).toBe('PENDING');
  });
});

describe('access control on, INTERACTIONS_ALLOWED_HOSTS set: every door', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({
      store: 'memory',
      env: { INTERACTIONS_ALLOWED_HOSTS: 'tai.behind-a-proxy.example' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a listed host is served; another is 403 on /graphql too', async () => {
    expect((await gql(t, 'tai.behind-a-proxy.example', auth('agent'))).statusCode).toBe(200);
    const foreign = await gql(t, 'evil.example.com', auth('agent'));
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('INTERACTIONS_ALLOWED_HOSTS', () => {
  it('is a comma list of host names, lowercased, blank for none', () => {
    expect(loadConfig({}).allowedHosts).toEqual([]);
    expect(loadConfig({ INTERACTIONS_ALLOWED_HOSTS: ' ' }).allowedHosts).toEqual([]);
    expect(
      loadConfig({ INTERACTIONS_ALLOWED_HOSTS: 'tai.example.com, Agents.Internal,10.0.0.5,tai.example.com' })
        .allowedHosts,
    ).toEqual(['tai.example.com', 'agents.internal', '10.0.0.5']);
    // A label of 63 characters is a host name; 64 is not.
    expect(loadConfig({ INTERACTIONS_ALLOWED_HOSTS: `${'a'.repeat(63)}.example` }).allowedHosts).toHaveLength(
      1,
    );
  });

  it('refuses anything else with one line naming the variable and the bad item', () => {
    for (const [value, bad] of [
      ['https://tai.example.com', 'https://tai.example.com'],
      ['tai.example.com:443', 'tai.example.com:443'],
      ['tai.example.com/path', 'tai.example.com/path'],
      ['a.example,,b.example', ''],
      ['*.example.com', '*.example.com'],
      [`${'a'.repeat(64)}.example`, `${'a'.repeat(40)}…`],
      ['bad_name.example', 'bad_name.example'],
    ]) {
      let err: unknown;
      try {
        loadConfig({ INTERACTIONS_ALLOWED_HOSTS: value });
      } catch (e) {
        err = e;
      }
      expect(err, value).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toBe(
        `INTERACTIONS_ALLOWED_HOSTS: expected a comma list of host names such as tai.example.com (no scheme, port or path), got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('the start-up line says where the check applies and what it accepts', () => {
    expect(
      hostCheckSummary({ accessControl: true, allowedHosts: [], publicBaseUrl: 'https://tai.example.com' }),
    ).toBe(
      'Host check on /mcp only (access control is on and INTERACTIONS_ALLOWED_HOSTS is empty); accepted hosts: localhost, IP addresses, tai.example.com',
    );
    expect(hostCheckSummary({ accessControl: false, allowedHosts: ['a.example'], publicBaseUrl: null })).toBe(
      'Host check on every door; accepted hosts: localhost, IP addresses, a.example',
    );
  });

  it('a server bound beyond loopback with no name configured is warned about at start', () => {
    const none = { accessControl: true, allowedHosts: [], publicBaseUrl: null };
    expect(hostCheckWarning({ ...none, bindHost: '0.0.0.0' })).toBe(
      'HOST=0.0.0.0 listens beyond loopback but no host name is configured: /mcp answers 403 to a request that names this server by a DNS name; set INTERACTIONS_PUBLIC_BASE_URL or INTERACTIONS_ALLOWED_HOSTS to the names clients use',
    );
    expect(hostCheckWarning({ ...none, accessControl: false, bindHost: '::' })).toContain(
      'every door answers 403',
    );
    for (const bindHost of ['127.0.0.1', '127.0.0.2', 'localhost', '::1']) {
      expect(hostCheckWarning({ ...none, bindHost }), bindHost).toBeNull();
    }
    expect(hostCheckWarning({ ...none, allowedHosts: ['tai.example.com'], bindHost: '0.0.0.0' })).toBeNull();
    expect(
      hostCheckWarning({ ...none, publicBaseUrl: 'https://tai.example.com', bindHost: '0.0.0.0' }),
    ).toBeNull();
  });

  it('a request with no Host header at all is accepted (HTTP/1.0; no browser omits it)', () => {
    const accepts = hostAccepter({ allowedHosts: [], publicBaseUrl: null });
    expect(accepts(undefined)).toBe(true);
    expect(accepts('evil.example.com')).toBe(false);
  });
});
