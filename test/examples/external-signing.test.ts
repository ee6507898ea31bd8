// The README's external-question walkthrough, run for real: the example asker blocks, a
// person opens the provider's page and signs, the provider POSTs an HMAC-signed callback,
// and the asker wakes with the verified payload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExample } from '../support/example-run.ts';
import { freePort } from '../support/fixtures.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

const SECRET = 'demo-secret-for-the-test';

describe('examples/external-signing.ts', () => {
  let t: TestServer;
  beforeAll(async () => {
    const port = await freePort();
    t = await startServer({
      store: 'redis',
      env: {
        PORT: String(port),
        INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        DEMO_SIGNING_SECRET: SECRET,
        INTERACTIONS_VERIFIER_SECRETS: 'DEMO_SIGNING_SECRET',
      },
    });
    await t.listen();
  });
  afterAll(async () => {
    await t.close();
  });

  it('wakes the blocked asker with the signed payload', async () => {
    const providerPort = await freePort();
    const run = runExample(
      'examples/external-signing.ts',
      {
        TAI_URL: t.url!,
        TAI_API_KEY: KEYS.agent,
        DEMO_SIGNING_SECRET: SECRET,
        DEMO_PROVIDER_PORT: String(providerPort),
      },
      /Open this link and sign: (\S+)/,
    );
    const link = (await run.printed)[1]!;
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${providerPort}/sign\\?callback=http://`));

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<button type="submit">Sign</button>');
    const signed = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Ada',
    });
    expect(await signed.text()).toContain('The callback answered 200');

    expect(await run.exited).toBe(0);
    const m = /Question answered: (.*)/.exec(run.stdout());
    expect(m, run.output()).not.toBeNull();
    expect(JSON.parse(m![1]!)).toMatchObject({ signed: true, signer: 'Ada' });
  }, 30_000);
});
