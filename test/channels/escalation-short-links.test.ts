// Escalation steps (API.md §18) shorten links as the first delivery does (§9): a REROUTE to
// Discord, whose link buttons take at most 512 characters, and a REMIND at every place, hand the
// plugin the server's short redirect instead of an EXTERNAL question's long link. Against the
// loopback Discord fake, which refuses a button URL over 512 characters as Discord does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import { discordPlugin } from '../../src/channels/discord/plugin.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createEscalationSteps } from '../../src/engine/outbox/escalation-steps.ts';
import { targetParts } from '../../src/engine/outbox/worker.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { AGENT, SETTINGS } from '../support/engines.ts';
import { startDiscordHarness } from '../support/fakes/discord-harness.ts';
import type { ProviderHarness } from '../support/fakes/provider-harness.ts';

const T0 = 1_900_000_000_000;
const LONG_LINK = `https://forms.example/review?state=${'s'.repeat(900)}&cb={callback_url}`;
const SHORT = new RegExp(`^${SETTINGS.publicBaseUrl}/l/[A-Za-z0-9_-]{43}$`);
const noLog = { info() {}, warn() {}, error() {} };
let h: ProviderHarness & { fake: { calls: unknown[] } };

beforeAll(async () => {
  h = await startDiscordHarness();
});
afterAll(() => h.close());

/** The URLs of the link buttons in a Discord message body. */
function buttonUrls(body: Record<string, unknown>): string[] {
  const rows = (body.components ?? []) as { components: { url?: string }[] }[];
  return rows.flatMap((r) => r.components.map((c) => c.url)).filter((u): u is string => u !== undefined);
}

async function escalationRun() {
  let now = T0;
  const clock = () => now;
  const store = createMemoryStore({ clock });
  // Two instances on the one fake: the question's own place and the REROUTE's.
  const set = createChannelSet(
    {
      first: { config: h.config, implementation: discordPlugin },
      second: { config: h.config, implementation: discordPlugin },
    },
    { env: h.secrets, logger: noLog, publicBaseUrl: SETTINGS.publicBaseUrl },
  );
  const channels = channelPort(set, { first: 'discord', second: 'discord' });
  const engine = createInteractions({ store, settings: SETTINGS, clock, channels });
  await engine.start();
  const escalate = createEscalationSteps({
    store,
    channels,
    logger: { ...noLog, debug() {} } as never,
    clock,
    publicBaseUrl: SETTINGS.publicBaseUrl,
  });
  const tick = async (t: number) => {
    now = t;
    await store.escalateDue(t, 100);
    for (const item of await store.outbox.leaseDue(t, 100, 60_000, 'test')) {
      const { kind, name } = targetParts(item.target);
      if (kind === 'escalate') await escalate(item, await store.get(item.questionId), name);
      await store.outbox.ack(item.id, item.leaseToken);
    }
  };
  const close = async () => {
    await engine.stop();
    await set.close();
  };
  return { engine, store, tick, close };
}

describe('escalation steps shorten links', () => {
  it('a REROUTE to Discord and a REMIND deliver an EXTERNAL question’s long link as a short redirect', async () => {
    const { engine, store, tick, close } = await escalationRun();
    try {
      const { question } = await engine.ask(
        AGENT,
        {
          text: 'Review the change',
          format: 'EXTERNAL',
          link: LONG_LINK,
          channel: 'first',
          recipient: h.recipient,
          timeoutSeconds: 120,
          escalation: [
            { afterSeconds: 10, action: 'REROUTE', channel: 'second', recipient: h.recipient },
            { afterSeconds: 20, action: 'REMIND' },
          ],
        },
        { holdSeconds: 0 },
      );
      const asked = h.deliveries().length;
      expect(buttonUrls(h.deliveries().at(-1)!)).toEqual([expect.stringMatching(SHORT)]);

      await tick(T0 + 10_000);
      const rerouted = h.deliveries().slice(asked);
      expect(rerouted).toHaveLength(1);
      expect(buttonUrls(rerouted[0]!)).toEqual([expect.stringMatching(SHORT)]);

      await tick(T0 + 20_000);
      // One reminder at each place the question reached, each with a short link.
      const reminders = h.deliveries().slice(asked + 1);
      expect(reminders).toHaveLength(2);
      for (const body of reminders) expect(buttonUrls(body)).toEqual([expect.stringMatching(SHORT)]);

      const steps = await engine.escalations((await store.get(question.id))!);
      expect(steps.map((s) => s.outcome)).toEqual(['DELIVERED', 'DELIVERED']);
      // A short link leads to the question's own link, its callback URL filled in.
      const token = buttonUrls(reminders[1]!)[0]!.split('/l/')[1]!;
      const target = await engine.followLink(token);
      expect(target).toMatch(
        /^https:\/\/forms\.example\/review\?state=s{900}&cb=https:\/\/hitl\.example\/api\/interactions\/callback\//,
      );
    } finally {
      await close();
    }
  });
});
