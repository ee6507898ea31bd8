// The outbox's work is woken by the store's announcements, not found by its poll: with the
// reaper and the outbox both polling every 60 s, on both stores, (1) an escalation step fires
// when it falls due (API.md §18): the ASKED announcement tells every instance when the ladder's
// steps are due, the engine's alarm runs the store's escalation step then, and the worker is
// woken for the item it moved; (2) a resolution's channel follow-up goes out at once, woken by
// the engine's one subscription (the worker has no listener of its own). Each is awaited at a
// loopback webhook receiver.
import { afterEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import { webhookPlugin } from '../../src/channels/webhook.ts';
import type { EscalationStep } from '../../src/domain/escalation.ts';
import { AGENT, OPS } from '../support/engines.ts';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';
import { specOf } from '../support/fixtures.ts';
import { startServer, type TestServer } from '../support/server.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const POLL_MS = 60_000;
/** How late the step may arrive: far below the poll it must not wait for. */
const ON_TIME_MS = 10_000;
/** How far ahead of now the step falls due (the ladder's shortest step is 10 s: backdated). */
const DUE_IN_MS = 300;

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function serverWithOncall(store: 'memory' | 'redis'): Promise<{ t: TestServer; oncall: HttpReceiver }> {
  const oncall = await startReceiver();
  closers.push(() => oncall.close());
  const set = createChannelSet(
    { oncall: { config: { url: oncall.url, secretEnv: 'HOOK_SECRET' }, implementation: webhookPlugin } },
    {
      env: { HOOK_SECRET: SECRET },
      logger: { info() {}, warn() {}, error() {} },
      publicBaseUrl: 'http://127.0.0.1:4000',
    },
  );
  closers.push(() => set.close());
  const t = await startServer({
    store,
    env: { INTERACTIONS_REAPER_INTERVAL_MS: String(POLL_MS) },
    plugins: { channels: channelPort(set, { oncall: 'webhook' }), outbox: { pollMs: POLL_MS } },
  });
  closers.push(() => t.close());
  return { t, oncall };
}

describe.each(['memory', 'redis'] as const)('an escalation step on time (%s store)', (store) => {
  it('is delivered when due, long before the next reaper or outbox poll', async () => {
    const { t, oncall } = await serverWithOncall(store);
    const due = Date.now() + DUE_IN_MS;
    const step: EscalationStep = { afterSeconds: 10, action: 'REROUTE', channel: 'oncall', recipient: null };
    // Asked 10 s before the step's due time, as if the ladder's shortest step were almost over.
    const spec = specOf({ createdAt: due - 10_000, timeoutAt: due + 120_000, escalation: [step] });
    const delivered = oncall.waitFor(() => true);
    const created = await t.server.store.create(spec, {
      maxPending: 1000,
      retentionMs: 60_000,
      escalationDue: [due],
    });
    expect(created.kind).toBe('created');
    const received = await delivered;
    const late = Date.now() - due;
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(ON_TIME_MS);
    // The step's own delivery: this question, rerouted to the on-call channel.
    expect(received.body.toString('utf8')).toContain(spec.id);
  });

  it("a resolution's channel follow-up is sent at once, long before the next outbox poll", async () => {
    const { t, oncall } = await serverWithOncall(store);
    const asked = await t.server.engine.ask(
      AGENT,
      { text: 'Deploy?', format: 'CONFIRM', channel: 'oncall' },
      { holdSeconds: 0 },
    );
    const id = asked.question.id;
    await oncall.waitFor((r) => r.body.toString('utf8').includes('"question.asked"'));
    const resolved = oncall.waitFor((r) => r.body.toString('utf8').includes('"question.resolved"'));
    const at = Date.now();
    await t.server.engine.answer(OPS, id, true);
    expect((await resolved).body.toString('utf8')).toContain(id);
    expect(Date.now() - at).toBeLessThan(ON_TIME_MS);
  });
});
