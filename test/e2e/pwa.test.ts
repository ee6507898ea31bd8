// The installable inbox (API.md §19) in headless Chromium: the service worker registers and
// controls the page under the inbox's CSP, the manifest is valid and Chromium reports no
// installability error (the criteria Lighthouse checks), and the worker caches the shell only:
// API responses never land in its cache.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_CSP } from '../../src/http/routes/inbox.ts';
import {
  buildInbox,
  chromiumPath,
  KEYS,
  launchChromium,
  openPage,
  type RunningServer,
  startInboxServer,
} from './harness.ts';

let browser: Browser;
let srv: RunningServer;

beforeAll(async () => {
  await buildInbox();
  [browser, srv] = await Promise.all([launchChromium(), startInboxServer()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

describe('the installable inbox', () => {
  it('serves the worker, the manifest and the icons under the inbox CSP', async () => {
    const sw = await fetch(`${srv.url}/sw.js`);
    expect(sw.status).toBe(200);
    expect(sw.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(sw.headers.get('content-security-policy')).toBe(INBOX_CSP);
    expect(sw.headers.get('cache-control')).toBe('no-cache');
    const manifest = await fetch(`${srv.url}/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json; charset=utf-8');
    const m = await manifest.json();
    expect(m).toMatchObject({ start_url: '/', scope: '/', display: 'standalone' });
    for (const icon of m.icons as { src: string; sizes: string }[]) {
      const png = Buffer.from(await (await fetch(`${srv.url}${icon.src}`)).arrayBuffer());
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      const [w, h] = icon.sizes.split('x').map(Number);
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([w, h]);
    }
    expect((await fetch(`${srv.url}/icons/nope.png`)).status).toBe(404);
  });

  it('registers the service worker; the manifest has no errors and the app is installable', async () => {
    // A profile of its own: Chromium never offers to install from an incognito context, which is
    // what a plain new context is.
    const profile = mkdtempSync(path.join(tmpdir(), 'pwa-profile-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const problems: string[] = [];
    try {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
      });
      await page.goto(`${srv.url}/`);
      const scope = await page.evaluate(
        'navigator.serviceWorker.ready.then((r) => [r.scope, r.active && r.active.scriptURL])',
      );
      expect(scope).toEqual([`${srv.url}/`, `${srv.url}/sw.js`]);
      const cdp = await context.newCDPSession(page);
      const manifest = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[] };
      expect(manifest.url).toBe(`${srv.url}/manifest.webmanifest`);
      expect(manifest.errors).toEqual([]);
      const installable = (await cdp.send('Page.getInstallabilityErrors')) as {
        installabilityErrors: unknown[];
      };
      expect(installable.installabilityErrors).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it('controls the page and caches the shell, never the API', async () => {
    const w = await openPage(browser);
    try {
      await w.page.goto(`${srv.url}/#key=${KEYS.ops}`);
      await w.page.evaluate('navigator.serviceWorker.ready');
      // Controlled from the next load on (clients.claim may also take this one).
      await w.page.reload();
      await w.page.waitForFunction('navigator.serviceWorker.controller !== null');
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
      // API traffic through the controlled page: a query and the session check.
      const status = await w.page.evaluate(`fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer ${KEYS.ops}' },
          body: JSON.stringify({ query: '{ viewer { id } }' }),
        }).then((r) => r.status)`);
      expect(status).toBe(200);
      const cached = (await w.page.evaluate(
        `caches.open('tai-inbox-shell-v1').then((c) => c.keys()).then((ks) => ks.map((k) => new URL(k.url).pathname))`,
      )) as string[];
      expect(cached).toContain('/');
      expect(cached).toContain('/manifest.webmanifest');
      expect(cached.some((p) => p.startsWith('/assets/'))).toBe(true);
      expect(
        cached.filter((p) => !(p === '/' || p === '/manifest.webmanifest' || /^\/(assets|icons)\//.test(p))),
      ).toEqual([]);
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
