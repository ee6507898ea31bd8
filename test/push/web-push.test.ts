// Web Push (API.md §19) against a loopback push service that decrypts every message (RFC 8291)
// and verifies its VAPID token: the subscription doors and their endpoint allow-list, a push for
// each new question the subscriber may see (and none for one they may not), Approve / Reject
// actions on CONFIRM, the sensitive rule, and 410 deleting the subscription.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePushService, startFakePushService } from '../support/fake-push-service.ts';
import { auth, startServer, type TestServer, type Who } from '../support/server.ts';

let pushService: FakePushService;
let t: TestServer;
let url: string;

beforeAll(async () => {
  pushService = await startFakePushService();
  t = await startServer({
    store: 'memory',
    env: { INTERACTIONS_PUSH_HOSTS: `fcm.googleapis.com,${new URL(pushService.origin).host}` },
  });
  url = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await pushService?.close();
});

function subscribe(who: Who, body: unknown, method: 'POST' | 'DELETE' = 'POST'): Promise<Response> {
  return fetch(`${url}/api/interactions/push/subscriptions`, {
    method,
    headers: { ...auth(who), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function ask(input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...auth('agent'), 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } } }',
      variables: { i: input },
    }),
  });
  const body = await res.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data.askUser.question.id;
}

describe('the subscription doors', () => {
  it('gives the VAPID public key to an authenticated caller only', async () => {
    const res = await fetch(`${url}/api/interactions/push/key`, { headers: auth('ops') });
    expect((await res.json()).publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect((await fetch(`${url}/api/interactions/push/key`)).status).toBe(401);
  });

  it.each([
    ['a host not on the list', { endpoint: 'https://evil.example/push/1' }, 'endpoint'],
    ['http:// on a host that is not loopback', { endpoint: 'http://fcm.googleapis.com/x' }, 'endpoint'],
    ['a loopback host the list does not name', { endpoint: 'http://localhost:9/x' }, 'endpoint'],
    ['user info in the URL', { endpoint: 'https://a:b@fcm.googleapis.com/x' }, 'endpoint'],
    ['no keys', { endpoint: 'https://fcm.googleapis.com/x', keys: null }, 'keys'],
    [
      'a bad p256dh',
      { endpoint: 'https://fcm.googleapis.com/x', keys: { p256dh: 'not base64!', auth: 'AAAA' } },
      'keys.p256dh',
    ],
  ])('refuses %s with BAD_USER_INPUT, storing nothing', async (_what, body, field) => {
    const full = { keys: pushService.device('refused').subscription.keys, ...body };
    const res = await subscribe('ops', full);
    expect(res.status).toBe(400);
    const err = await res.json();
    expect(err).toMatchObject({ code: 'BAD_USER_INPUT', field });
    if (field === 'endpoint')
      expect(err.error).toContain(`fcm.googleapis.com, ${new URL(pushService.origin).host}`);
  });

  it('needs a credential', async () => {
    const res = await fetch(`${url}/api/interactions/push/subscriptions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });
});

describe('pushes', () => {
  it('sends each new question to the subscribers who may see it, encrypted, with VAPID and actions', async () => {
    const ops = pushService.device('ops-phone');
    const alice = pushService.device('alice-phone');
    expect((await subscribe('ops', ops.subscription)).status).toBe(201);
    expect((await subscribe('alice', alice.subscription)).status).toBe(201);

    const arrives = pushService.next('ops-phone');
    const id = await ask({ text: 'Deploy 2.0 to production?', format: 'CONFIRM' });
    const got = await arrives;
    expect(got.payload).toEqual({
      v: 1,
      id,
      title: 'A question is waiting',
      body: 'Deploy 2.0 to production?',
      format: 'CONFIRM',
      url: `/#question=${id}`,
      actions: [
        { action: 'approve', title: 'Approve', answer: true },
        { action: 'reject', title: 'Reject', answer: false },
      ],
    });
    expect(got.vapid.aud).toBe(pushService.origin);
    expect(got.vapid.sub).toMatch(/^mailto:/);
    expect(got.vapid.k).toBe(
      (await (await fetch(`${url}/api/interactions/push/key`, { headers: auth('ops') })).json()).publicKey,
    );
    expect(got.headers.ttl).toBe('86400');

    // Alice (restricted) may not see an unaddressed question: the same notify queues only ops'.
    const question = await t.server.store.get(id);
    const before = pushService.received.filter((r) => r.device === 'alice-phone').length;
    const again = pushService.next('ops-phone');
    expect(await t.server.push.notify(question!, 'remind')).toBe(1);
    await again;
    expect(pushService.received.filter((r) => r.device === 'alice-phone')).toHaveLength(before);

    // Addressed to her: both devices get it; a TEXT question carries no actions.
    const forAlice = pushService.next('alice-phone');
    const forOps = pushService.next('ops-phone');
    const textId = await ask({ text: 'Which branch?', format: 'TEXT', audience: 'alice' });
    const hers = await forAlice;
    expect(hers.payload).toMatchObject({ id: textId, body: 'Which branch?', actions: [] });
    expect((await forOps).payload).toMatchObject({ id: textId });
  });

  it('a sensitive question says only that a question is waiting', async () => {
    const arrives = pushService.next('ops-phone');
    await ask({ text: 'Your one-time code for the bank?', format: 'TEXT', sensitive: true });
    const got = await arrives;
    expect(got.payload).toEqual({ v: 1, title: 'A question is waiting', body: '', actions: [] });
  });

  it('a reminder is pushed through the same hook with its own title', async () => {
    const asked = pushService.next('alice-phone');
    const id = await ask({ text: 'Still waiting: approve?', format: 'CONFIRM', audience: 'alice' });
    expect((await asked).payload).toMatchObject({ id, title: 'A question is waiting' });
    const arrives = pushService.next('alice-phone');
    expect(await t.server.push.notify((await t.server.store.get(id))!, 'remind')).toBeGreaterThanOrEqual(1);
    expect((await arrives).payload).toMatchObject({ id, title: 'Reminder: a question is waiting' });
  });

  it('a 410 from the push service deletes the subscription; DELETE removes one on request', async () => {
    const gone = pushService.device('gone-phone');
    expect((await subscribe('ops', gone.subscription)).status).toBe(201);
    pushService.statusFor.set('gone-phone', 410);
    const first = pushService.next('gone-phone');
    const q = await t.server.store.get(await ask({ text: 'One more?', format: 'CONFIRM' }));
    await first;
    const count = () => pushService.received.filter((r) => r.device === 'gone-phone').length;
    const afterFirst = count();
    // The outbox settles the 410's item once the subscription is deleted: then a reminder
    // queues nothing for that device (ops' own phone only).
    await expect.poll(async () => (await t.server.store.outbox.stats(Date.now())).items).toBe(0);
    const ops = pushService.next('ops-phone');
    expect(await t.server.push.notify(q!, 'remind')).toBe(1);
    await ops;
    expect(count()).toBe(afterFirst);

    // Each caller removes only their own: ops cannot remove alice's device.
    const alicePhone = { endpoint: `${pushService.origin}/push/alice-phone` };
    expect(await (await subscribe('ops', alicePhone, 'DELETE')).json()).toEqual({ removed: false });
    expect(await (await subscribe('alice', alicePhone, 'DELETE')).json()).toEqual({ removed: true });
    expect(await (await subscribe('alice', alicePhone, 'DELETE')).json()).toEqual({ removed: false });
  });
});

describe('pushes through the outbox on Redis, two instances', () => {
  it('one notification per device, whichever instance stored the question', async () => {
    const hosts = new URL(pushService.origin).host;
    const a = await startServer({ store: 'redis', env: { INTERACTIONS_PUSH_HOSTS: hosts } });
    const b = await startServer({
      store: 'redis',
      prefix: a.prefix,
      env: { INTERACTIONS_PUSH_HOSTS: hosts },
    });
    try {
      const [urlA, urlB] = [await a.listen(), await b.listen()];
      const phone = pushService.device('shared-phone');
      const sub = await fetch(`${urlA}/api/interactions/push/subscriptions`, {
        method: 'POST',
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        body: JSON.stringify(phone.subscription),
      });
      expect(sub.status).toBe(201);
      const arrives = pushService.next('shared-phone');
      const asked = await fetch(`${urlB}/graphql`, {
        method: 'POST',
        headers: { ...auth('agent'), 'content-type': 'application/json' },
        body: JSON.stringify({
          query:
            'mutation { askUser(input: {text: "Both instances?", format: CONFIRM}, holdSeconds: 0) { question { id } } }',
        }),
      });
      const id = (await asked.json()).data.askUser.question.id;
      expect((await arrives).payload).toMatchObject({ id, body: 'Both instances?' });
      // The items (the question's, then the device's) are settled once; then exactly one
      // notification reached the device.
      await expect.poll(async () => (await a.server.store.outbox.stats(Date.now())).items).toBe(0);
      expect(
        pushService.received.filter((r) => r.device === 'shared-phone' && r.payload.id === id),
      ).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
