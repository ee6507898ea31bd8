// One hung push service delays no one else's pushes (API.md §19): each device's push is its own
// outbox item targeted at its push service's origin, and the worker caps deliveries in flight
// per target. A device on a push service that takes the request and never answers is subscribed
// first (it is the first person `notify` reads); the 100 devices on a healthy push service all
// get the question while the hung one still holds its request (the sender gives it 10 s).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakePushService, startFakePushService } from '../support/fake-push-service.ts';
import { type HungReceiver, startHungReceiver } from '../support/fakes/hung-receiver.ts';
import { startServer, type TestServer } from '../support/server.ts';

const PEOPLE = 11;
const key = (i: number): string => `push-person-key-${String(i).padStart(10, '0')}`;

let pushService: FakePushService;
let hung: HungReceiver;
let t: TestServer;
let url: string;

beforeAll(async () => {
  [pushService, hung] = await Promise.all([startFakePushService(), startHungReceiver()]);
  const principals = [
    { id: 'agent', key: 'hung-test-agent-key-0001', roles: ['agent'] },
    ...Array.from({ length: PEOPLE }, (_, i) => ({ id: `person-${i}`, key: key(i), roles: ['operator'] })),
  ];
  t = await startServer({
    store: 'memory',
    env: {
      INTERACTIONS_API_KEYS: JSON.stringify(principals),
      INTERACTIONS_PUSH_HOSTS: `${new URL(pushService.origin).host},${new URL(hung.url).host}`,
    },
  });
  url = await t.listen();
});
afterAll(async () => {
  // The hung service first: cutting its socket ends the push the server still waits for.
  await hung?.close();
  await t?.close();
  await pushService?.close();
});

async function subscribe(person: number, subscription: unknown): Promise<void> {
  const res = await fetch(`${url}/api/interactions/push/subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key(person)}`, 'content-type': 'application/json' },
    body: JSON.stringify(subscription),
  });
  expect(res.status).toBe(201);
}

it('a hung push service beside 100 healthy devices: all 100 get the push while it still holds its request', async () => {
  // The hung device (its own person, subscribed first) uses a real device's keys.
  const keys = pushService.device('hung-keys').subscription.keys;
  await subscribe(PEOPLE - 1, { endpoint: `${new URL(hung.url).origin}/push/hung`, keys });
  const healthy = Array.from({ length: 100 }, (_, i) => pushService.device(`phone-${i}`));
  for (const [i, d] of healthy.entries()) await subscribe(Math.floor(i / 10), d.subscription);

  const arrivals = healthy.map((d) => pushService.next(d.name));
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: 'Bearer hung-test-agent-key-0001', 'content-type': 'application/json' },
    body: JSON.stringify({
      query:
        'mutation { askUser(input: {text: "Roll back?", format: CONFIRM}, holdSeconds: 0) { question { id } } }',
    }),
  });
  const id = (await res.json()).data.askUser.question.id;

  const [got] = await Promise.all([Promise.all(arrivals), hung.waitFor(1)]);
  expect(got.map((r) => r.payload.id)).toEqual(healthy.map(() => id));
  expect(new Set(got.map((r) => r.device)).size).toBe(100);
  // The hung push service's request is still open: nobody waited for it.
  expect(hung.holding()).toBe(1);
  expect(hung.received()).toBe(1);
});
