// A push subscription lives no longer than what authorised it (API.md §19): signing out of a
// session ends the subscriptions made in it (another session's devices keep receiving), and a
// subscription made with an API key stops once that key is no longer configured (a restart
// without it), checked when the push is due. Each "received nothing" is read after a sentinel
// device got the same question and the outbox has settled every item.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerKey } from '../../src/engine/people/push-records.ts';
import { type FakePushService, startFakePushService } from '../support/fake-push-service.ts';
import { freePort, uniquePrefix } from '../support/fixtures.ts';
import {
  CookieJar,
  finishSignIn,
  signInVia,
  startOidcProvider,
  type TestProvider,
} from '../support/oidc-provider.ts';
import { startServer, type TestServer } from '../support/server.ts';

let pushService: FakePushService;

beforeAll(async () => {
  pushService = await startFakePushService();
});
afterAll(async () => {
  await pushService?.close();
});

const pushHosts = (): string => new URL(pushService.origin).host;
const AGENT_KEY = 'authority-agent-key-000001';

async function ask(url: string, text: string): Promise<string> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${AGENT_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query:
        'mutation($t: String!) { askUser(input: {text: $t, format: CONFIRM}, holdSeconds: 0) { question { id } } }',
      variables: { t: text },
    }),
  });
  return (await res.json()).data.askUser.question.id;
}

function subscriptions(
  url: string,
  headers: Record<string, string>,
  method: 'POST' | 'DELETE',
  body: unknown,
) {
  return fetch(`${url}/api/interactions/push/subscriptions`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const received = (device: string, id: string): number =>
  pushService.received.filter((r) => r.device === device && r.payload.id === id).length;

async function settled(t: TestServer): Promise<void> {
  await expect.poll(async () => (await t.server.store.outbox.stats(Date.now())).items).toBe(0);
}

describe('signing out', () => {
  let provider: TestProvider;
  let t: TestServer;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({
      redirectUris: [`${url}/auth/callback`],
      accounts: { ada: { name: 'Ada Lovelace', roles: ['reviewers'] } },
    });
    t = await startServer({
      store: 'memory',
      env: {
        PORT: String(port),
        INTERACTIONS_PUBLIC_BASE_URL: url,
        INTERACTIONS_API_KEYS: JSON.stringify([{ id: 'agent', key: AGENT_KEY, roles: ['agent'] }]),
        INTERACTIONS_OIDC_ISSUER: provider.issuer,
        INTERACTIONS_OIDC_CLIENT_ID: provider.clientId,
        INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'TEST_OIDC_SECRET',
        TEST_OIDC_SECRET: provider.clientSecret,
        INTERACTIONS_OIDC_ROLE_MAP: JSON.stringify({ reviewers: 'operator' }),
        INTERACTIONS_PUSH_HOSTS: pushHosts(),
      },
    });
    await t.listen();
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  async function session(): Promise<Record<string, string>> {
    const jar = new CookieJar();
    expect((await finishSignIn(jar, await signInVia(jar, url, 'ada'))).status).toBe(303);
    return { cookie: `tai_session=${jar.get(url, 'tai_session')}`, origin: url };
  }

  it("ends that session's subscriptions, and only that session's", async () => {
    const [laptop, phone] = [await session(), await session()];
    const inLaptop = pushService.device('ada-laptop');
    const inPhone = pushService.device('ada-phone');
    expect((await subscriptions(url, laptop, 'POST', inLaptop.subscription)).status).toBe(201);
    expect((await subscriptions(url, phone, 'POST', inPhone.subscription)).status).toBe(201);

    const out = await fetch(`${url}/auth/logout`, { method: 'POST', headers: laptop });
    expect(out.status).toBe(204);
    // Gone at once: the same person, from the other session, finds nothing to remove.
    const removed = await subscriptions(url, phone, 'DELETE', { endpoint: inLaptop.subscription.endpoint });
    expect(await removed.json()).toEqual({ removed: false });

    const arrives = pushService.next('ada-phone');
    const id = await ask(url, 'Rotate the signing key?');
    expect((await arrives).payload).toMatchObject({ id });
    await settled(t);
    expect(received('ada-laptop', id)).toBe(0);
  });
});

describe('a key no longer configured', () => {
  it('stops the pushes of the subscriptions made with it, after a restart without it', async () => {
    const prefix = uniquePrefix();
    const keeper = { id: 'keeper', key: 'authority-keeper-key-0001', roles: ['operator'] };
    const leaver = { id: 'leaver', key: 'authority-leaver-key-0001', roles: ['operator'] };
    const agent = { id: 'agent', key: AGENT_KEY, roles: ['agent'] };
    const start = (keys: unknown[]) =>
      startServer({
        store: 'redis',
        prefix,
        env: { INTERACTIONS_API_KEYS: JSON.stringify(keys), INTERACTIONS_PUSH_HOSTS: pushHosts() },
      });

    const before = await start([agent, keeper, leaver]);
    try {
      const url = await before.listen();
      const bearer = (k: { key: string }) => ({ authorization: `Bearer ${k.key}` });
      const kept = pushService.device('keeper-phone');
      const left = pushService.device('leaver-phone');
      expect((await subscriptions(url, bearer(keeper), 'POST', kept.subscription)).status).toBe(201);
      expect((await subscriptions(url, bearer(leaver), 'POST', left.subscription)).status).toBe(201);
      // While the key is configured, both devices get pushes.
      const both = [pushService.next('keeper-phone'), pushService.next('leaver-phone')];
      const first = await ask(url, 'Before the key is removed?');
      expect((await Promise.all(both)).map((r) => r.payload.id)).toEqual([first, first]);
    } finally {
      await before.close();
    }

    const after = await start([agent, keeper]);
    try {
      const url = await after.listen();
      const arrives = pushService.next('keeper-phone');
      const id = await ask(url, 'After the key is removed?');
      expect((await arrives).payload).toMatchObject({ id });
      await settled(after);
      expect(received('leaver-phone', id)).toBe(0);
      // Found out when its push was due: the subscription is deleted.
      expect(await after.server.store.people.mapAll(ownerKey('leaver'), Date.now())).toEqual({});
      expect(
        Object.keys(await after.server.store.people.mapAll(ownerKey('keeper'), Date.now())),
      ).toHaveLength(1);
    } finally {
      await after.close();
    }
  });
});
