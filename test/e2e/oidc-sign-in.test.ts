// Signing in to the inbox through a real identity provider (oidc-provider on loopback), end to
// end in headless Chromium: "Sign in with …", the provider's own login and consent pages, back to
// the inbox signed in by the session cookie with the person's name, a CONFIRM answered (the
// answer carries the person's id), and sign-out ending the session on the server.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/fixtures.ts';
import { startOidcProvider, type TestProvider } from '../support/oidc-provider.ts';
import {
  askAndWait,
  buildInbox,
  card,
  closeSettings,
  launchChromium,
  openPage,
  openSettings,
  type RunningServer,
  startInboxServer,
} from './harness.ts';

let browser: Browser;
let srv: RunningServer;
let provider: TestProvider;

beforeAll(async () => {
  const port = await freePort();
  provider = await startOidcProvider({
    redirectUris: [`http://127.0.0.1:${port}/auth/callback`],
    accounts: { ada: { name: 'Ada Lovelace', email: 'ada@example.com', roles: ['inbox-admins'] } },
  });
  await buildInbox();
  [browser, srv] = await Promise.all([
    launchChromium(),
    startInboxServer({
      port,
      env: {
        INTERACTIONS_OIDC_ISSUER: provider.issuer,
        INTERACTIONS_OIDC_CLIENT_ID: provider.clientId,
        INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'E2E_OIDC_SECRET',
        E2E_OIDC_SECRET: provider.clientSecret,
        INTERACTIONS_OIDC_ROLE_MAP: '{"inbox-admins":"operator"}',
      },
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await provider?.close();
});

describe('sign-in through the identity provider', () => {
  it('signs in on the provider’s pages, answers as the person, signs out', async () => {
    const w = await openPage(browser);
    try {
      await w.page.goto(`${srv.url}/`);
      const button = w.page.getByTestId('sign-in-with');
      expect(await button.textContent()).toBe(`Sign in with ${new URL(provider.issuer).host}`);
      // Pasting a key is still offered next to it.
      await w.page.getByLabel('API key').waitFor();
      await button.click();

      // The provider's own pages: login (any name, any password), then consent.
      await w.page.locator('input[name="login"]').fill('ada');
      await w.page.locator('input[name="password"]').fill('anything');
      await w.page.locator('button[type="submit"]').click();
      await w.page.getByRole('button', { name: 'Continue' }).click();

      await w.page.waitForURL(`${srv.url}/`);
      // The provider's development pages load fonts from the internet (unreachable here): only
      // what the inbox itself reports from now on counts.
      w.problems.length = 0;
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
      await openSettings(w.page);
      await w.page.getByText('Signed in as Ada Lovelace').waitFor();
      await closeSettings(w.page);
      const cookies = await w.context.cookies(srv.url);
      const session = cookies.find((c) => c.name === 'tai_session');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
      // Nothing of the session is readable by the page.
      expect(await w.page.evaluate('document.cookie')).not.toContain('tai_session');

      const text = `Ship release #${Math.random().toString(36).slice(2, 8)}?`;
      const asker = askAndWait(srv.url, { text, format: 'CONFIRM' });
      const c = card(w.page, text);
      await c.waitFor();
      await c.getByRole('button', { name: 'Yes' }).click();
      const result = await asker;
      expect(result.answer).toBe(true);
      expect(result.question.answeredBy).toBe('oidc:ada');

      await openSettings(w.page);
      await w.page.getByRole('button', { name: 'Sign out' }).click();
      await w.page.getByTestId('sign-in-with').waitFor();
      // The old cookie no longer opens anything on the server.
      await expect
        .poll(async () =>
          (
            await fetch(`${srv.url}/auth/session`, { headers: { cookie: `tai_session=${session?.value}` } })
          ).json(),
        )
        .toMatchObject({ signedIn: null });
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
