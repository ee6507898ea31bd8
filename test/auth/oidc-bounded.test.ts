// The relying party reads at most a bounded response from the identity provider: an issuer
// whose discovery document never ends is a 502 sign-in page after 64 KiB, not a server that
// buffers it whole (the outgoing-calls rule; the provider is configured, but can be wrong).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';

describe('OIDC discovery reads a bounded response', () => {
  let issuer: Server;
  let sent = 0;
  let t: TestServer;
  let url: string;

  beforeAll(async () => {
    // Streams JSON whitespace for as long as the client keeps reading (stops at 64 MiB).
    issuer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"issuer":"x",');
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        while (sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', more);
            return;
          }
        }
        res.end('}');
      };
      res.on('close', () => res.removeAllListeners('drain'));
      more();
    });
    await new Promise<void>((r) => issuer.listen(0, '127.0.0.1', r));
    const { port } = issuer.address() as AddressInfo;
    t = await startServer({
      store: 'memory',
      env: {
        INTERACTIONS_OIDC_ISSUER: `http://127.0.0.1:${port}`,
        INTERACTIONS_OIDC_CLIENT_ID: 'tai',
        INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'TEST_OIDC_SECRET',
        TEST_OIDC_SECRET: 'not-used-here',
      },
    });
    url = await t.listen();
  });
  afterAll(async () => {
    await t?.close();
    issuer?.closeAllConnections();
    await new Promise<void>((r) => issuer?.close(() => r()));
  });

  it('answers 502 at /auth/login and stops reading the endless document', async () => {
    const res = await fetch(`${url}/auth/login`, { redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(await res.text()).toContain('could not be reached');
    // The client cancelled the body: far less than the 64 MiB the issuer would have sent.
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });
});
