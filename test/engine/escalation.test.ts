// Escalation ladders end to end in one engine (API.md §18): validation of `escalation` and
// `escalationPolicy` at each limit and one past it, and the steps performed against real
// `webhook` channel instances posting to loopback receivers (signatures checked with the
// standardwebhooks package). Time is driven through the engine's clock and the store's `now`:
// nothing sleeps.
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import type { ChannelInstance } from '../../src/channels/types.ts';
import { webhookPlugin } from '../../src/channels/webhook.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { EscalationStep } from '../../src/domain/escalation.ts';
import { createChannelFollowUp } from '../../src/engine/deliveries/follow-up.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createEscalationSteps, reminderText } from '../../src/engine/outbox/escalation-steps.ts';
import { targetParts } from '../../src/engine/outbox/worker.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { AGENT, OPS, SETTINGS } from '../support/engines.ts';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';

/** The promise is refused with this code and a message matching `message`. */
async function expectDomainError(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe(code);
  expect((err as DomainError).message).toMatch(message);
}

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const T0 = 1_900_000_000_000;

interface Rig {
  store: QuestionStore;
  channels: ChannelPort;
  engine: ReturnType<typeof createInteractions>;
  primary: HttpReceiver;
  oncall: HttpReceiver;
  setNow(t: number): void;
  /** One reaper pass of escalations, then every due outbox item performed once. */
  tick(t: number): Promise<void>;
  close(): Promise<void>;
}

/** Every body a receiver got, its signature checked. */
function bodies(r: HttpReceiver): Record<string, unknown>[] {
  return r.requests.map((req) => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    return new Webhook(SECRET).verify(req.body.toString('utf8'), headers) as Record<string, unknown>;
  });
}

async function rig(
  policies: Record<string, EscalationStep[]> = {},
  wrap?: (port: ChannelPort) => ChannelPort,
): Promise<Rig> {
  const primary = await startReceiver();
  const oncall = await startReceiver();
  let now = T0;
  const clock = () => now;
  const store = createMemoryStore({ clock });
  const set = createChannelSet(
    {
      primary: {
        config: { url: primary.url, secretEnv: 'HOOK_SECRET' },
        implementation: webhookPlugin,
      },
      oncall: {
        config: { url: oncall.url, secretEnv: 'HOOK_SECRET' },
        implementation: webhookPlugin,
      },
    },
    {
      env: { HOOK_SECRET: SECRET },
      logger: { info() {}, warn() {}, error() {} },
      publicBaseUrl: SETTINGS.publicBaseUrl,
    },
  );
  const base = channelPort(set, { primary: 'webhook', oncall: 'webhook' });
  const channels = wrap ? wrap(base) : base;
  const engine = createInteractions({
    store,
    settings: SETTINGS,
    clock,
    channels,
    escalationPolicies: policies,
  });
  await engine.start();
  const handlers = {
    escalate: createEscalationSteps({
      store,
      channels,
      logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
      clock,
      publicBaseUrl: SETTINGS.publicBaseUrl,
    }),
    channel: createChannelFollowUp({ store, channels, clock }),
  };
  return {
    store,
    channels,
    engine,
    primary,
    oncall,
    setNow(t) {
      now = t;
    },
    async tick(t) {
      now = t;
      await store.escalateDue(t, 100);
      for (const item of await store.outbox.leaseDue(t, 100, 60_000, 'test')) {
        const { kind, name } = targetParts(item.target);
        const handler = handlers[kind as keyof typeof handlers];
        if (!handler) continue;
        await handler(item, await store.get(item.questionId), name);
        await store.outbox.ack(item.id, item.leaseToken);
      }
    },
    async close() {
      await engine.stop();
      await set.close();
      await primary.close();
      await oncall.close();
    },
  };
}

const LADDER = [
  { afterSeconds: 10, action: 'REMIND' },
  { afterSeconds: 20, action: 'REROUTE', channel: 'oncall', recipient: 'on-call' },
  { afterSeconds: 30, action: 'REMIND' },
];

async function ask(r: Rig, over: Record<string, unknown> = {}) {
  return r.engine.ask(
    AGENT,
    {
      text: 'Deploy?',
      format: 'CONFIRM',
      channel: 'primary',
      timeoutSeconds: 60,
      escalation: LADDER,
      ...over,
    },
    { holdSeconds: 0 },
  );
}

describe('escalation: validation', () => {
  let r: Rig;
  beforeEach(async () => {
    r = await rig({ page: [{ afterSeconds: 30, action: 'REROUTE', channel: 'oncall', recipient: null }] });
  });
  afterEach(() => r.close());

  const remindAt = (...secs: number[]) => secs.map((s) => ({ afterSeconds: s, action: 'REMIND' }));

  it('takes 10 steps and refuses 11', async () => {
    const ten = remindAt(...Array.from({ length: 10 }, (_, i) => 10 + i));
    expect((await ask(r, { escalation: ten, timeoutSeconds: 600 })).question.escalation).toHaveLength(10);
    await expectDomainError(
      ask(r, { escalation: remindAt(...Array.from({ length: 11 }, (_, i) => 10 + i)), timeoutSeconds: 600 }),
      'BAD_USER_INPUT',
      /at most 10 steps/,
    );
  });

  it('takes afterSeconds 10 and refuses 9', async () => {
    expect((await ask(r, { escalation: remindAt(10) })).question.escalation?.[0]?.afterSeconds).toBe(10);
    await expectDomainError(ask(r, { escalation: remindAt(9) }), 'BAD_USER_INPUT', /at least 10/);
  });

  it('refuses steps that are not strictly increasing', async () => {
    expect((await ask(r, { escalation: remindAt(10, 11) })).question.escalation).toHaveLength(2);
    await expectDomainError(
      ask(r, { escalation: remindAt(10, 10) }),
      'BAD_USER_INPUT',
      /strictly increasing/,
    );
  });

  it('takes a step one second before the timeout and refuses one at it', async () => {
    expect((await ask(r, { escalation: remindAt(59) })).question.escalation).toHaveLength(1);
    await expectDomainError(
      ask(r, { escalation: remindAt(60) }),
      'BAD_USER_INPUT',
      /before the question times out/,
    );
  });

  it('refuses an unknown channel, listing the configured ones', async () => {
    await expectDomainError(
      ask(r, { escalation: [{ afterSeconds: 10, action: 'REROUTE', channel: 'pager' }] }),
      'BAD_USER_INPUT',
      /unknown channel \(configured: "oncall", "primary"\)|unknown channel \(configured: "primary", "oncall"\)/,
    );
  });

  it('refuses REROUTE without a channel and REMIND with one', async () => {
    await expectDomainError(
      ask(r, { escalation: [{ afterSeconds: 10, action: 'REROUTE' }] }),
      'BAD_USER_INPUT',
      /REROUTE needs a channel/,
    );
    await expectDomainError(
      ask(r, { escalation: [{ afterSeconds: 10, action: 'REMIND', channel: 'oncall' }] }),
      'BAD_USER_INPUT',
      /REMIND takes no channel/,
    );
  });

  it('names a manifest policy, refuses an undefined one with the defined ones, and not both', async () => {
    const got = await ask(r, { escalation: undefined, escalationPolicy: 'page' });
    expect(got.question.escalation).toEqual([
      { afterSeconds: 30, action: 'REROUTE', channel: 'oncall', recipient: null },
    ]);
    await expectDomainError(
      ask(r, { escalation: undefined, escalationPolicy: 'nope' }),
      'BAD_USER_INPUT',
      /unknown escalation policy \(defined: "page"\)/,
    );
    await expectDomainError(ask(r, { escalationPolicy: 'page' }), 'BAD_USER_INPUT', /exclusive/);
  });

  it('refuses a policy whose steps pass the question’s timeout', async () => {
    await expectDomainError(
      ask(r, { escalation: undefined, escalationPolicy: 'page', timeoutSeconds: 30 }),
      'BAD_USER_INPUT',
      /before the question times out/,
    );
  });
});

describe('escalation: firing against webhook channels', () => {
  let r: Rig;
  afterEach(() => r.close());

  it('reminds, reroutes, reminds every place; the rerouted place answers; every message is edited', async () => {
    r = await rig();
    const { question } = await ask(r);
    expect(bodies(r.primary).map((b) => b.type)).toEqual(['question.asked']);

    await r.tick(T0 + 9_999);
    expect(r.primary.requests).toHaveLength(1);

    await r.tick(T0 + 10_000);
    const reminded = bodies(r.primary)[1]!;
    expect(reminded).toMatchObject({ type: 'question.reminded', question: { id: question.id } });
    expect(String(reminded.callbackUrl)).toMatch(/^https:\/\/hitl\.example\/api\/interactions\/callback\//);

    await r.tick(T0 + 20_000);
    expect(bodies(r.oncall).map((b) => b.type)).toEqual(['question.asked']);
    expect(bodies(r.oncall)[0]!.question).toMatchObject({ id: question.id, recipient: 'on-call' });

    await r.tick(T0 + 30_000);
    expect(bodies(r.primary).map((b) => b.type)).toEqual([
      'question.asked',
      'question.reminded',
      'question.reminded',
    ]);
    expect(bodies(r.oncall).map((b) => b.type)).toEqual(['question.asked', 'question.reminded']);

    const steps = await r.engine.escalations((await r.store.get(question.id))!);
    expect(steps.map((s) => [s.firedAt, s.outcome])).toEqual([
      [T0 + 10_000, 'DELIVERED'],
      [T0 + 20_000, 'DELIVERED'],
      [T0 + 30_000, 'DELIVERED'],
    ]);

    // The on-call person answers through the callback URL the REROUTE handed out.
    const url = String(bodies(r.oncall)[0]!.callbackUrl);
    const ticket = url.slice(url.lastIndexOf('/') + 1);
    r.setNow(T0 + 31_000);
    expect(
      await r.engine.callback({
        ticket,
        body: Buffer.from('{"answer":true}'),
        headers: { 'content-type': 'application/json' },
        query: {},
      }),
    ).toBe('answered');

    await r.tick(T0 + 31_000);
    expect(bodies(r.primary).at(-1)).toMatchObject({
      type: 'question.resolved',
      question: { status: 'ANSWERED' },
    });
    expect(bodies(r.oncall).at(-1)).toMatchObject({
      type: 'question.resolved',
      question: { status: 'ANSWERED' },
    });
  });

  it('fires nothing after an answer, a cancel or a timeout', async () => {
    r = await rig();
    const answered = (await ask(r)).question;
    const cancelled = (await ask(r)).question;
    const timedOut = (await ask(r)).question;
    await r.engine.answer(OPS, answered.id, true);
    await r.engine.cancel(AGENT, cancelled.id, 'not needed');
    await r.store.expireDue(T0 + 60_000, 60_000, 100);
    expect((await r.store.get(timedOut.id))?.status).toBe('TIMED_OUT');
    const before = r.primary.requests.length;
    for (const t of [10_000, 20_000, 30_000, 60_000]) await r.tick(T0 + t);
    // Only the three resolutions' edits: no reminder, and no REROUTE reached the on-call place.
    expect(
      bodies(r.primary)
        .slice(before)
        .map((b) => b.type),
    ).toEqual(Array(3).fill('question.resolved'));
    expect(r.oncall.requests).toHaveLength(0);
    for (const q of [answered, cancelled, timedOut]) {
      expect((await r.store.escalations(q.id)).size).toBe(0);
    }
  });

  it('records a failed step and still fires the next one', async () => {
    r = await rig();
    const { question } = await ask(r);
    await r.tick(T0 + 10_000);
    r.oncall.respondWith(500);
    await r.tick(T0 + 20_000);
    await r.tick(T0 + 30_000);
    const steps = await r.engine.escalations((await r.store.get(question.id))!);
    expect(steps[1]!.outcome).toMatch(/^FAILED: oncall: .*500/);
    expect(steps[2]).toMatchObject({ firedAt: T0 + 30_000, outcome: 'DELIVERED' });
    expect(bodies(r.primary).map((b) => b.type)).toEqual([
      'question.asked',
      'question.reminded',
      'question.reminded',
    ]);
  });

  it('a plugin without remind gets a new delivery that refers to the first', async () => {
    const sent: { text: string; channel: string | null }[] = [];
    r = await rig({}, (port) => ({
      ...port,
      // The primary instance as a plugin that has no `remind`.
      instance: (name) => {
        const i = port.instance?.(name);
        if (!i || name !== 'primary') return i;
        const { remind: _none, ...rest } = i;
        return rest as ChannelInstance;
      },
      async deliver(q, url) {
        sent.push({ text: q.text, channel: q.channel });
        return port.deliver(q, url);
      },
    }));
    const { question } = await ask(r, { escalation: [{ afterSeconds: 10, action: 'REMIND' }] });
    await r.tick(T0 + 10_000);
    expect(sent).toEqual([
      { text: 'Deploy?', channel: 'primary' },
      { text: reminderText('Deploy?'), channel: 'primary' },
    ]);
    expect((await r.store.escalations(question.id)).get(0)?.outcome).toBe('DELIVERED');
  });

  it('a step performed again (a worker that died before its ack) does not deliver twice', async () => {
    r = await rig();
    const { question } = await ask(r, { escalation: [{ afterSeconds: 10, action: 'REMIND' }] });
    await r.store.escalateDue(T0 + 10_000, 100);
    const [item] = await r.store.outbox.leaseDue(T0 + 10_000, 10, 1, 'dies');
    const handler = createEscalationSteps({
      store: r.store,
      channels: r.channels,
      logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
      clock: () => T0 + 10_000,
      publicBaseUrl: SETTINGS.publicBaseUrl,
    });
    await handler(item!, await r.store.get(question.id), '0');
    // Its lease ran out unacknowledged: another worker leases and performs it again.
    const [again] = await r.store.outbox.leaseDue(T0 + 10_002, 10, 60_000, 'other');
    expect(again?.id).toBe(item!.id);
    await handler(again!, await r.store.get(question.id), '0');
    expect(bodies(r.primary).map((b) => b.type)).toEqual(['question.asked', 'question.reminded']);
  });
});
