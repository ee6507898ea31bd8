// Resume webhooks (API.md §12) through whole servers on the private Redis, delivered to a
// receiver on loopback: one signed delivery per resolution, retries under one webhook-id, 410
// stops, sensitive answers left out, and exactly once across two instances and a dead one.
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import {
  createInteractionsClient,
  type InteractionsClient,
  verifyReceipt,
  verifyWebhook,
} from '../../src/client/index.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { webhookIdOf } from '../../src/engine/outbox/resume-webhooks.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { AGENT, SETTINGS } from '../support/engines.ts';
import { redisPair, uniquePrefix } from '../support/fixtures.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { type Delivery, type Receiver, startReceiver, webhookSecret } from './receiver.ts';

const SECRET = webhookSecret();
const OUTBOX = { pollMs: 20, webhookScheduleScale: 0.001 };

let redis: Redis;
const open: { close(): Promise<void> }[] = [];

beforeAll(() => {
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
});
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});
afterAll(() => {
  redis.disconnect();
});

async function receiver(script: number[] = []): Promise<Receiver> {
  const r = await startReceiver(script);
  open.push(r);
  return r;
}

async function server(r: Receiver, prefix = uniquePrefix()): Promise<TestServer> {
  const t = await startServer({
    store: 'redis',
    prefix,
    env: { INTERACTIONS_REAPER_INTERVAL_MS: '50' },
    plugins: { webhookEndpoints: { runs: { url: r.url, secret: SECRET } }, outbox: OUTBOX },
  });
  open.push(t);
  await t.listen();
  return t;
}

function client(t: TestServer, who: keyof typeof KEYS = 'agent'): InteractionsClient {
  return createInteractionsClient({ url: t.url!, apiKey: KEYS[who] });
}

/** Resolves once no follow-up is left in the outbox (acknowledged or dropped). */
async function outboxDrained(t: TestServer): Promise<void> {
  await vi.waitFor(async () => expect(await redis.zcard(`${t.config.keyPrefix}outbox`)).toBe(0), {
    timeout: 10_000,
    interval: 20,
  });
}

/** Checks the signature both ways (the reference library and the SDK) and returns the event. */
function verified(d: Delivery) {
  const headers = d.headers as Record<string, string>;
  const byLibrary = new Webhook(SECRET).verify(d.body, headers);
  const bySdk = verifyWebhook(d.headers, d.body, SECRET);
  expect(bySdk).toEqual(byLibrary);
  return bySdk;
}

describe('resume webhooks on Redis', () => {
  it('delivers one signed webhook per resolution: answered, timed out, cancelled', async () => {
    const r = await receiver();
    const t = await server(r);
    const agent = client(t);
    const ops = client(t, 'ops');
    const metadata = { runId: 'run-7', step: 3 };

    const answered = await agent.ask({ text: 'Ship it?', format: 'CONFIRM', notify: 'runs', metadata });
    expect(answered.question).toMatchObject({ status: 'PENDING', notify: 'runs', metadata });
    await ops.answer(answered.question.id, true);
    const timedOut = await agent.ask({ text: 'Quick?', notify: 'runs', timeoutSeconds: 1 });
    const cancelled = await agent.ask({ text: 'Never mind?', notify: 'runs', metadata });
    await agent.cancel(cancelled.question.id, 'changed plans');

    const got = await r.received(3);
    await outboxDrained(t);
    expect(r.deliveries).toHaveLength(3);
    const byId = new Map(got.map((d) => [verified(d).question.id, d]));
    expect(byId.size).toBe(3);

    const a = verified(byId.get(answered.question.id)!);
    expect(a).toMatchObject({
      type: 'question.resolved',
      question: { status: 'ANSWERED', answer: true, metadata },
    });
    expect(verified(byId.get(timedOut.question.id)!).question).toMatchObject({
      status: 'TIMED_OUT',
      metadata: null,
    });
    expect(verified(byId.get(cancelled.question.id)!).question).toMatchObject({
      status: 'CANCELLED',
      cancelReason: 'changed plans',
      metadata,
    });
    // Each carries its decision receipt, which the server's published keys verify.
    const jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    for (const [id, d] of byId) {
      expect(d.headers['webhook-id']).toBe(webhookIdOf(`${id}:webhook:runs`));
      expect(d.headers['content-type']).toBe('application/json');
      expect(d.headers['user-agent']).toBe('tai-interactions');
      const event = verified(d);
      const claims = await verifyReceipt(event.receipt as string, { jwks, questionId: id });
      expect(claims.outcome.status).toBe(event.question.status);
    }
  });

  it('retries a failing receiver under the same webhook-id until it answers 2xx', async () => {
    const r = await receiver([500, 503, 200]);
    const t = await server(r);
    const asked = await client(t).ask({ text: 'Retry me?', notify: 'runs' });
    await client(t, 'ops').answer(asked.question.id, 'yes');
    const got = await r.received(3);
    await outboxDrained(t);
    expect(r.deliveries).toHaveLength(3);
    expect(new Set(got.map((d) => d.headers['webhook-id']))).toEqual(
      new Set([webhookIdOf(`${asked.question.id}:webhook:runs`)]),
    );
    for (const d of got) expect(verified(d).question.answer).toBe('yes');
  });

  it('stops at 410 Gone', async () => {
    const r = await receiver([410]);
    const t = await server(r);
    const asked = await client(t).ask({ text: 'Gone?', notify: 'runs' });
    await client(t).cancel(asked.question.id);
    await r.received(1);
    await outboxDrained(t);
    expect(r.deliveries).toHaveLength(1);
  });

  it('leaves a sensitive answer out of the body; the asker reads it once with waitFor', async () => {
    const r = await receiver();
    const t = await server(r);
    const agent = client(t);
    const asked = await agent.ask({ text: 'Your PIN?', sensitive: true, notify: 'runs' });
    await client(t, 'ops').answer(asked.question.id, '4321');
    const [d] = await r.received(1);
    expect(d!.body).not.toContain('4321');
    expect(verified(d!).question).toMatchObject({ status: 'ANSWERED', sensitive: true, answer: null });
    expect(await agent.waitFor(asked.question.id)).toBe('4321');
  });

  it('two instances deliver each resolution once', async () => {
    const r = await receiver();
    const prefix = uniquePrefix();
    const [a, b] = [await server(r, prefix), await server(r, prefix)];
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const asked = await client(i % 2 ? a : b).ask({ text: `Q${i}?`, notify: 'runs' });
      ids.push(asked.question.id);
    }
    await Promise.all(ids.map((id, i) => client(i % 2 ? b : a).cancel(id)));
    await r.received(12);
    await outboxDrained(a);
    expect(r.deliveries).toHaveLength(12);
    expect(new Set(r.deliveries.map((d) => verified(d).question.id))).toEqual(new Set(ids));
  });

  it('a delivery leased by an instance that died is made by another once the lease expires', async () => {
    const r = await receiver();
    const prefix = uniquePrefix();
    const conn = redisPair(inject('redisUrl'));
    open.push(conn);
    // The instance that dies: an engine and store on the same Redis, with no worker running, so
    // the test decides when it leases; it leases the delivery and never settles it.
    const store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix });
    const engine = createInteractions({ store, settings: SETTINGS, webhooks: ['runs'] });
    const asked = await engine.ask(
      AGENT,
      { text: 'Lease?', notify: 'runs', metadata: { runId: 'r1' } },
      { holdSeconds: 0 },
    );
    await engine.cancel(AGENT, asked.question.id, 'done');
    const leased = await store.outbox.leaseDue(Date.now(), 10, 300, 'dead-instance');
    expect(leased.map((i) => i.target)).toEqual(['webhook:runs']);

    // The live instance starts while the lease holds, and delivers once it has expired.
    const t = await server(r, prefix);
    const [d] = await r.received(1);
    await outboxDrained(t);
    expect(r.deliveries).toHaveLength(1);
    expect(d!.headers['webhook-id']).toBe(webhookIdOf(leased[0]!.id));
    expect(verified(d!).question).toMatchObject({
      id: asked.question.id,
      status: 'CANCELLED',
      metadata: { runId: 'r1' },
    });
    // The dead instance's lease is no longer its own: it cannot settle what another did.
    expect(await store.outbox.ack(leased[0]!.id, leased[0]!.leaseToken)).toBe(false);
    await store.close();
  });
});
