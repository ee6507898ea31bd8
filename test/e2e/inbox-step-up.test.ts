// A HIGH approval in the inbox (API.md §23), end to end in headless Chromium with a virtual
// authenticator (CDP WebAuthn, user verification on): a person signs in through a real identity
// provider, registers a passkey from the top bar, and approves an agent's HIGH action with it;
// the question records the assurance, the credential and what was shown. An API key cannot
// approve the same kind of question: STEP_UP_REQUIRED with a link to the inbox.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/fixtures.ts';
import { startOidcProvider, type TestProvider } from '../support/oidc-provider.ts';
import {
  ask,
  askAndWait,
  buildInbox,
  card,
  closeSettings,
  gql,
  launchChromium,
  openPage,
  openSettings,
  type RunningServer,
  startInboxServer,
} from './harness.ts';

let browser: Browser;
let srv: RunningServer;
let provider: TestProvider;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  // WebAuthn refuses an IP address as the relying party: the server lives at localhost.
  base = `http://localhost:${port}`;
  provider = await startOidcProvider({
    redirectUris: [`${base}/auth/callback`],
    accounts: { ada: { name: 'Ada Lovelace', email: 'ada@example.com', roles: ['inbox-admins'] } },
  });
  await buildInbox();
  [browser, srv] = await Promise.all([
    launchChromium(),
    startInboxServer({
      port,
      env: {
        INTERACTIONS_PUBLIC_BASE_URL: base,
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

const action = (amount: number) => ({
  name: 'payments.wire',
  summary: 'Wire to the supplier',
  arguments: { amount },
  assurance: 'HIGH',
});

describe('step-up in the inbox', () => {
  it('registers a passkey, approves a HIGH action with it; a key is refused', async () => {
    const w = await openPage(browser);
    try {
      const cdp = await w.context.newCDPSession(w.page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      await w.page.goto(`${base}/`);
      await w.page.getByTestId('sign-in-with').click();
      await w.page.locator('input[name="login"]').fill('ada');
      await w.page.locator('input[name="password"]').fill('anything');
      await w.page.locator('button[type="submit"]').click();
      await w.page.getByRole('button', { name: 'Continue' }).click();
      await w.page.waitForURL(`${base}/`);
      // The provider's development pages load fonts from the internet (unreachable here).
      w.problems.length = 0;
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();

      // The passkey control sits on the settings page with the other per-person controls.
      await openSettings(w.page);
      await w.page.getByRole('button', { name: 'Register a passkey' }).click();
      await w.page.getByTestId('passkey-status').getByText('Passkey registered').waitFor();
      await closeSettings(w.page);

      const text = `Wire 1200 EUR #${Math.random().toString(36).slice(2, 8)}?`;
      const asker = askAndWait(srv.url, { text, format: 'APPROVAL', action: action(1200) });
      const c = card(w.page, text);
      await c.waitFor();
      // No grant is offered beside Approve: a HIGH approval cannot be granted (API.md §20).
      expect(await c.getByRole('button', { name: 'Approve and allow for 1 hour' }).count()).toBe(0);
      await c.getByRole('button', { name: 'Approve', exact: true }).click();
      const result = await asker;
      expect(result.question.status).toBe('ANSWERED');
      expect(result.question.answeredBy).toBe('oidc:ada');
      const read = await gql(
        srv.url,
        'ops',
        'query($id: ID!) { question(id: $id) { assurance credentialId presentedDigest action { assurance } } }',
        { id: result.question.id },
      );
      expect(read.data.question).toMatchObject({
        assurance: 'webauthn-uv',
        action: { assurance: 'HIGH' },
      });
      expect(read.data.question.credentialId).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(read.data.question.presentedDigest).toMatch(/^sha256:[0-9a-f]{64}$/);

      // A key holder (the CLI, an agent, a script) cannot approve a HIGH action.
      const other = await ask(srv.url, { text: `${text} again`, format: 'APPROVAL', action: action(5) });
      const refused = await gql(
        srv.url,
        'ops',
        'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED"}) { status } }',
        { id: other.question.id },
      );
      expect(refused.errors?.[0]?.extensions).toEqual({
        code: 'FORBIDDEN',
        reason: 'STEP_UP_REQUIRED',
        url: `${base}/?question=${other.question.id}`,
      });
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  }, 60_000);
});
