// GET /.well-known/jwks.json is readable by a browser on another origin (API.md §16): a page on
// a second loopback port fetches it in real Chromium and gets the keys. Only that route opens
// up: /health keeps the same-origin defaults, so the same fetch of it is refused.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';
import { launchChromium } from './harness.ts';

describe('the JWKS from another origin', () => {
  let t: TestServer & { url: string };
  let other: HttpServer;
  let otherUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    t = (await startServer({ store: 'memory' })) as TestServer & { url: string };
    await t.listen();
    // Another origin: a page of its own on a second loopback port.
    other = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>verifier</title>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => other?.close(resolve));
    await t?.close();
  });

  it('a page on another origin reads the key set; /health stays same-origin', async () => {
    const page = await browser.newPage();
    await page.goto(otherUrl);
    const read = (url: string) =>
      page.evaluate(async (u) => {
        try {
          const r = await fetch(u);
          return { status: r.status, body: await r.text() };
        } catch (err) {
          return { error: String(err) };
        }
      }, url);
    const jwks = await read(`${t.url}/.well-known/jwks.json`);
    expect(jwks).toMatchObject({ status: 200 });
    const keys = JSON.parse((jwks as { body: string }).body).keys as Array<Record<string, unknown>>;
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(keys[0]).not.toHaveProperty('d');
    expect(await read(`${t.url}/health`)).toMatchObject({
      error: expect.stringContaining('Failed to fetch'),
    });
    await page.close();
  });

  it('sends Access-Control-Allow-Origin: * and Cross-Origin-Resource-Policy: cross-origin on that route only', async () => {
    const jwks = await fetch(`${t.url}/.well-known/jwks.json`, {
      headers: { origin: otherUrl.slice(0, -1) },
    });
    expect(jwks.headers.get('access-control-allow-origin')).toBe('*');
    expect(jwks.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(jwks.headers.get('access-control-allow-credentials')).toBeNull();
    const health = await fetch(`${t.url}/health`, { headers: { origin: otherUrl.slice(0, -1) } });
    expect(health.headers.get('access-control-allow-origin')).toBeNull();
    expect(health.headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });
});
