// Escalation ladders across instances (API.md §18): two engines on one Redis, each with its own
// reaper pass and outbox worker, fire every step of 100 questions' ladders exactly once — counted
// at loopback webhook receivers — and an instance that dies holding a due step leaves it to the
// other once its lease runs out. Time is driven through the clocks and `now`: nothing sleeps.
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import { webhookPlugin } from '../../src/channels/webhook.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createEscalationSteps } from '../../src/engine/outbox/escalation-steps.ts';
import type { FollowUpHandler } from '../../src/engine/outbox/worker.ts';
import { targetParts } from '../../src/engine/outbox/worker.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { AGENT, SETTINGS } from '../support/engines.ts';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';
import { redisPair, uniquePrefix } from '../support/fixtures.ts';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const T0 = 1_900_000_000_000;
const SILENT = { info() {}, warn() {}, error() {}, debug() {} } as never;

interface Instance {
  store: QuestionStore;
  engine: ReturnType<typeof createInteractions>;
  escalate: FollowUpHandler;
}

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.reverse()) await c();
  closers = [];
});

async function cluster(count: number, clock: () => number) {
  const primary = await startReceiver();
  const oncall = await startReceiver();
  closers.push(
    () => primary.close(),
    () => oncall.close(),
  );
  const prefix = uniquePrefix();
  const instances: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const conn = redisPair(inject('redisUrl'));
    const store = createRedisStore({ redis: conn.redis, subscriber: conn.subscriber, prefix });
    const set = createChannelSet(
      {
        primary: { config: { url: primary.url, secretEnv: 'S' }, implementation: webhookPlugin },
        oncall: { config: { url: oncall.url, secretEnv: 'S' }, implementation: webhookPlugin },
      },
      { env: { S: SECRET }, logger: SILENT, publicBaseUrl: SETTINGS.publicBaseUrl },
    );
    const channels = channelPort(set, {});
    const engine = createInteractions({ store, settings: SETTINGS, clock, channels });
    await engine.start();
    const escalate = createEscalationSteps({
      store,
      channels,
      logger: SILENT,
      clock,
      publicBaseUrl: SETTINGS.publicBaseUrl,
    });
    instances.push({ store, engine, escalate });
    closers.push(async () => {
      await engine.stop();
      await store.close();
      await set.close();
      await conn.close();
    });
  }
  return { instances, primary, oncall };
}

/** One reaper pass and one worker pass of an instance at `now` (escalation items only). */
async function pass(i: Instance, now: number, leaseMs = 60_000): Promise<void> {
  await i.store.escalateDue(now, 500);
  for (const item of await i.store.outbox.leaseDue(now, 1000, leaseMs, `w${Math.random()}`)) {
    const { kind, name } = targetParts(item.target);
    if (kind !== 'escalate') continue;
    await i.escalate(item, await i.store.get(item.questionId), name);
    await i.store.outbox.ack(item.id, item.leaseToken);
  }
}

function types(r: HttpReceiver): string[] {
  return r.requests.map((req) => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    return (new Webhook(SECRET).verify(req.body.toString('utf8'), headers) as { type: string }).type;
  });
}

const count = (xs: string[], x: string) => xs.filter((y) => y === x).length;

describe('escalation across instances on one Redis', () => {
  it('two instances fire every step of 100 ladders exactly once', async () => {
    let now = T0;
    const { instances, primary, oncall } = await cluster(2, () => now);
    const [a, b] = instances as [Instance, Instance];
    const ids: string[] = [];
    for (let n = 0; n < 100; n++) {
      const asker = n % 2 === 0 ? a : b;
      const r = await asker.engine.ask(
        AGENT,
        {
          text: `Deploy ${n}?`,
          format: 'CONFIRM',
          channel: 'primary',
          timeoutSeconds: 600,
          escalation: [
            { afterSeconds: 10, action: 'REMIND' },
            { afterSeconds: 20, action: 'REROUTE', channel: 'oncall' },
          ],
        },
        { holdSeconds: 0 },
      );
      ids.push(r.question.id);
    }
    for (const t of [10_000, 20_000, 30_000]) {
      now = T0 + t;
      await Promise.all([pass(a, now), pass(b, now)]);
    }
    expect(count(types(primary), 'question.asked')).toBe(100);
    expect(count(types(primary), 'question.reminded')).toBe(100);
    expect(count(types(oncall), 'question.asked')).toBe(100);
    expect(oncall.requests).toHaveLength(100);
    for (const id of ids) {
      const fired = await a.store.escalations(id);
      expect([...fired.values()].map((f) => f.outcome)).toEqual(['DELIVERED', 'DELIVERED']);
    }
  });

  it('a step leased by an instance that dies is fired by the other once the lease ends', async () => {
    let now = T0;
    const { instances, primary } = await cluster(2, () => now);
    const [a, b] = instances as [Instance, Instance];
    const { question } = await a.engine.ask(
      AGENT,
      {
        text: 'Deploy?',
        format: 'CONFIRM',
        channel: 'primary',
        timeoutSeconds: 600,
        escalation: [{ afterSeconds: 10, action: 'REMIND' }],
      },
      { holdSeconds: 0 },
    );
    now = T0 + 10_000;
    // Instance a moves the step and leases it, then dies (killed) before performing it.
    expect(await a.store.escalateDue(now, 10)).toBe(1);
    const [held] = await a.store.outbox.leaseDue(now, 10, 5_000, 'a');
    expect(held?.target).toBe('escalate:0');
    // Within the lease, b finds nothing to do.
    await pass(b, now + 4_999);
    expect(count(types(primary), 'question.reminded')).toBe(0);
    // Past it, b performs the step, once.
    now = T0 + 15_001;
    await pass(b, now);
    await pass(b, now + 60_001);
    expect(count(types(primary), 'question.reminded')).toBe(1);
    expect((await b.store.escalations(question.id)).get(0)).toEqual({
      firedAt: T0 + 15_001,
      outcome: 'DELIVERED',
    });
  });
});
