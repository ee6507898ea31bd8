// The inbox door: the built page at / with its CSP, hashed assets with immutable caching, nothing
// outside the build directory, a clear page when the inbox is not built, and the door policy.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY, parseDoorPolicy } from '../../src/auth/door-policy.ts';
import { useDoorAuth } from '../../src/http/door-auth.ts';
import { handleError } from '../../src/http/errors.ts';
import { INBOX_CSP, inboxRoutes, NOT_BUILT_PAGE } from '../../src/http/routes/inbox.ts';

const KEY = 'inbox-route-key-000000001';
const keyring = createKeyring(parsePrincipals([{ id: 'ops', key: KEY, roles: ['operator'] }]));
const auth = (policy = DEFAULT_DOOR_POLICY) => createAuthenticator({ accessControl: true, keyring, policy });

let dir: string;
const apps: FastifyInstance[] = [];

async function appFor(root: string, policy = DEFAULT_DOOR_POLICY): Promise<FastifyInstance> {
  const app = Fastify();
  // The door hook and the error handler as createHttpApp installs them.
  const logger = pino({ level: 'silent' });
  app.setErrorHandler((err, req, reply) => handleError(err, req, reply, logger));
  useDoorAuth(app, auth(policy));
  await app.register(inboxRoutes, { root });
  apps.push(app);
  return app;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'inbox-route-'));
  mkdirSync(path.join(dir, 'dist', 'assets'), { recursive: true });
  writeFileSync(path.join(dir, 'dist', 'index.html'), '<!doctype html><title>Inbox</title>');
  writeFileSync(path.join(dir, 'dist', 'assets', 'index-AbC123.js'), 'console.log(1)');
  writeFileSync(path.join(dir, 'dist', 'assets', 'index-AbC123.css'), 'body{}');
  writeFileSync(path.join(dir, 'dist', 'assets', 'blob.bin'), 'x');
  writeFileSync(path.join(dir, 'secret.txt'), 'not for you');
});

afterAll(async () => {
  for (const app of apps) await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the inbox door', () => {
  it('serves the page with the strict CSP and no caching', async () => {
    const app = await appFor(path.join(dir, 'dist'));
    for (const url of ['/', '/index.html']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(INBOX_CSP);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.body).toBe('<!doctype html><title>Inbox</title>');
    }
    const head = await app.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(200);
  });

  it('allows nothing inline and no eval', () => {
    expect(INBOX_CSP).toBe(
      "default-src 'self'; img-src 'self' https: data:; script-src 'self'; style-src 'self'; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
    expect(INBOX_CSP).not.toMatch(/unsafe-(inline|eval)/);
  });

  it('serves hashed assets with their type and immutable caching', async () => {
    const app = await appFor(path.join(dir, 'dist'));
    const js = await app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toBe('console.log(1)');
    const css = await app.inject({ method: 'GET', url: '/assets/index-AbC123.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers a repeat visit with 304 by ETag, and HEAD with the headers only', async () => {
    const app = await appFor(path.join(dir, 'dist'));
    for (const url of ['/', '/assets/index-AbC123.js']) {
      const first = await app.inject({ method: 'GET', url });
      const etag = first.headers.etag;
      expect(etag, url).toMatch(/^(W\/)?"/);
      const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(etag) } });
      expect(again.statusCode, url).toBe(304);
      expect(again.body).toBe('');
      const changed = await app.inject({ method: 'GET', url, headers: { 'if-none-match': '"other"' } });
      expect(changed.statusCode, url).toBe(200);
      const head = await app.inject({ method: 'HEAD', url });
      expect(head.statusCode, url).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['content-security-policy']).toBe(INBOX_CSP);
      expect(head.headers['content-type']).toBe(first.headers['content-type']);
    }
  });

  it.each([
    '/assets/..%2Fsecret.txt',
    '/assets/..%2F..%2Fsecret.txt',
    '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/assets/..%5c..%5csecret.txt',
    '/assets/.hidden.js',
    '/assets/missing-123.js',
    '/assets/blob.bin',
    '/assets/index-AbC123.js%00.css',
    '/secret.txt',
    '/../secret.txt',
  ])('finds nothing at %s', async (url) => {
    const app = await appFor(path.join(dir, 'dist'));
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('not for you');
  });

  it('says how to build the page when it is missing (the API still works)', async () => {
    const app = await appFor(path.join(dir, 'nowhere'));
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-security-policy']).toBe(INBOX_CSP);
    expect(res.body).toBe(NOT_BUILT_PAGE);
    expect(res.body).toContain('npm run build');
  });

  it('asks for a key when the door policy makes the inbox authenticated', async () => {
    const app = await appFor(path.join(dir, 'dist'), parseDoorPolicy({ doors: { inbox: 'authenticated' } }));
    expect((await app.inject({ method: 'GET', url: '/' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/assets/index-AbC123.js' })).statusCode).toBe(401);
    const ok = await app.inject({ method: 'GET', url: '/', headers: { authorization: `Bearer ${KEY}` } });
    expect(ok.statusCode).toBe(200);
  });
});
