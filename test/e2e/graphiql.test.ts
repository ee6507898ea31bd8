// GraphiQL in Chromium with the network cut off: every request to a host other than this
// server's loopback address is aborted, so the page can only work from its own files. A person
// enters an API key in the headers editor and runs `{ viewer { id } }`.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { launchChromium, openPage } from './harness.ts';

let t: TestServer;
let base = '';
let browser: Browser;

beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  base = await t.listen();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('GraphiQL, offline', () => {
  it('loads from this origin alone and runs { viewer { id } } with the key from its headers editor', async () => {
    const w = await openPage(browser);
    const cutOff: string[] = [];
    const origin = new URL(base).origin;
    await w.context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:'))
        return route.continue();
      cutOff.push(url);
      return route.abort('internetdisconnected');
    });
    try {
      const { page } = w;
      await page.goto(`${base}/graphql`);
      await page.locator('.graphiql-execute-button').waitFor();
      const headersEditor = page.locator('section[aria-label="Headers"] .graphiql-editor:not(.hidden)');
      await headersEditor.locator('.monaco-editor').waitFor();
      // Replace the example headers with the key, typed as a person types it (the editor closes
      // brackets and quotes itself, and types over them).
      const headers = `{"Authorization": "Bearer ${KEYS.agent}"}`;
      await headersEditor.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.type(headers);
      expect((await headersEditor.locator('.view-lines').textContent())?.replace(/\s+/g, ' ')).toBe(headers);
      await page.locator('.graphiql-execute-button').click();
      const response = page.locator('.graphiql-response');
      // The response is an editor too: its text has non-breaking spaces.
      const text = async (): Promise<string> => ((await response.textContent()) ?? '').replace(/\s+/g, ' ');
      await expect.poll(text, { timeout: 20_000 }).toContain('"id": "agent"');
      expect(cutOff).toEqual([]);
      expect(w.problems.filter((p) => /Content.Security.Policy|Refused to/i.test(p))).toEqual([]);
    } finally {
      await w.close();
    }
  }, 60_000);
});
