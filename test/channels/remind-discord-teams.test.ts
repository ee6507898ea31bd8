// Discord's and Teams' `remind` (API.md §18) against the loopback fakes speaking each provider's
// wire format: Discord replies to the question's message (`message_reference`) with the
// question's components, Teams replies to the card's activity through the connector (in its
// thread in a channel). A receipt that names no message is refused, a provider refusal is thrown,
// and through the escalation step handler either becomes the step's FAILED outcome while the next
// step still fires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import { discordPlugin } from '../../src/channels/discord/plugin.ts';
import { teamsPlugin } from '../../src/channels/teams/plugin.ts';
import type { ChannelPlugin, ChannelQuestion } from '../../src/channels/types.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createEscalationSteps } from '../../src/engine/outbox/escalation-steps.ts';
import { targetParts } from '../../src/engine/outbox/worker.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { AGENT, SETTINGS } from '../support/engines.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeDiscord, startFakeDiscord } from '../support/fakes/discord-api.ts';
import { startDiscordHarness } from '../support/fakes/discord-harness.ts';
import { DISCORD_APP, DISCORD_CHANNEL } from '../support/fakes/discord-requests.ts';
import type { ProviderHarness } from '../support/fakes/provider-harness.ts';
import { type FakeTeams, startFakeTeams } from '../support/fakes/teams-api.ts';
import { startTeamsHarness } from '../support/fakes/teams-harness.ts';
import { TEAMS_CONVERSATION } from '../support/fakes/teams-requests.ts';

const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-first';
const AGAIN = 'https://tai.example/api/interactions/callback/TICKET-again';
const DISCORD_TOKEN = 'discord-remind-token';
const APP_ID = '00000000-0000-0000-0000-0000000e3e3e';
const PASSWORD = 'teams-remind-password';
let discord: FakeDiscord;
let teams: FakeTeams;

beforeAll(async () => {
  discord = await startFakeDiscord(DISCORD_TOKEN);
  teams = await startFakeTeams(APP_ID, PASSWORD);
});
afterAll(async () => {
  await discord.close();
  await teams.close();
});

function discordChannel() {
  const config = discordPlugin.config.parse({
    botTokenEnv: 'T',
    publicKey: discord.publicKey,
    applicationId: DISCORD_APP,
    apiUrl: discord.apiUrl,
  });
  return discordPlugin.create(config, channelContext('ops-discord', { T: DISCORD_TOKEN }));
}

function teamsChannel() {
  const config = teamsPlugin.config.parse({
    appIdEnv: 'ID',
    appPasswordEnv: 'PW',
    openIdMetadataUrl: teams.openIdMetadataUrl,
    tokenUrl: teams.tokenUrl,
    serviceUrl: teams.serviceUrl,
  });
  return teamsPlugin.create(config, channelContext('ops-teams', { ID: APP_ID, PW: PASSWORD }));
}

const POSTS = /^\/channels\/\d+\/messages$/;
const dq = (over: Partial<ChannelQuestion> = {}) => channelQuestion({ recipient: DISCORD_CHANNEL, ...over });
const tq = (over: Partial<ChannelQuestion> = {}) =>
  channelQuestion({ recipient: TEAMS_CONVERSATION, ...over });

describe('discord remind', () => {
  it('replies to the question’s message with the escaped text and the same components, pinging nobody', async () => {
    const ch = discordChannel();
    const q = dq({ text: 'Ship <it> @everyone?' });
    const receipt = await ch.deliver(q, CALLBACK);
    const asked = discord.callsTo('POST', POSTS).at(-1)!;
    await ch.remind!(q, receipt, AGAIN);
    const call = discord.callsTo('POST', POSTS).at(-1)!;
    expect(call.path).toBe(`/channels/${receipt.channel}/messages`);
    expect(call.auth).toBe(`Bot ${DISCORD_TOKEN}`);
    expect(call.body).toMatchObject({
      content: 'Reminder: still waiting for an answer to "Ship \\<it\\> \\@everyone?"',
      message_reference: {
        message_id: receipt.message,
        channel_id: receipt.channel,
        fail_if_not_exists: false,
      },
      allowed_mentions: { parse: [], replied_user: false },
      flags: 4,
    });
    expect(call.body.components).toEqual(asked.body.components);
    // CONFIRM buttons carry the question id, never a callback ticket.
    expect(JSON.stringify(call.body)).not.toContain('TICKET');
  });

  it('a FORM’s link button points at the fresh callback URL the step handed out', async () => {
    const ch = discordChannel();
    const q = dq({ format: 'FORM', schema: { type: 'object', properties: { a: { type: 'object' } } } });
    const receipt = await ch.deliver(q, CALLBACK);
    await ch.remind!(q, receipt, AGAIN);
    const body = JSON.stringify(discord.callsTo('POST', POSTS).at(-1)!.body);
    expect(body).toContain(AGAIN);
    expect(body).not.toContain(CALLBACK);
  });

  it('text at 2,000 characters is cut so the reminder stays at Discord’s 2,000', async () => {
    const ch = discordChannel();
    const q = dq({ text: 'x'.repeat(2000) });
    await ch.remind!(q, await ch.deliver(q, CALLBACK), AGAIN);
    const content = String(discord.callsTo('POST', POSTS).at(-1)!.body.content);
    expect([...content]).toHaveLength(2000);
    expect(content.endsWith('x…"')).toBe(true);
  });

  it('a sensitive question’s reminder holds nothing but the question', async () => {
    const ch = discordChannel();
    const q = dq({ format: 'TEXT', sensitive: true, answer: 'hunter2', text: 'Your PIN?' });
    await ch.remind!(q, await ch.deliver(q, CALLBACK), AGAIN);
    const body = JSON.stringify(discord.callsTo('POST', POSTS).at(-1)!.body);
    expect(body).toContain('Your PIN?');
    expect(body).not.toContain('hunter2');
  });

  it('refuses a receipt naming no message, and throws Discord’s refusal without the token', async () => {
    const ch = discordChannel();
    const q = dq();
    const before = discord.calls.length;
    await expect(ch.remind!(q, { recipient: DISCORD_CHANNEL }, AGAIN)).rejects.toThrow(
      /names no discord message/,
    );
    expect(discord.calls).toHaveLength(before);
    const receipt = await ch.deliver(q, CALLBACK);
    discord.failNext(403, 50013, 'Missing Permissions');
    const err = await ch.remind!(q, receipt, AGAIN).catch((e: Error) => e);
    expect(String(err)).toMatch(/discord reply to message failed: HTTP 403 50013/);
    expect(String(err)).not.toContain(DISCORD_TOKEN);
  });
});

describe('teams remind', () => {
  it('replies to the card’s activity in its conversation with plain text', async () => {
    const ch = teamsChannel();
    const q = tq({ text: 'Ship <b>it</b>?' });
    const receipt = await ch.deliver(q, CALLBACK);
    await ch.remind!(q, receipt, AGAIN);
    const call = teams.calls.at(-1)!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe(
      `/v3/conversations/${encodeURIComponent(TEAMS_CONVERSATION)}/activities/${encodeURIComponent(String(receipt.activity))}`,
    );
    expect(call.auth).toMatch(/^Bearer access-/);
    expect(call.body).toEqual({
      type: 'message',
      textFormat: 'plain',
      text: 'Reminder: still waiting for an answer to "Ship <b>it</b>?"',
      replyToId: receipt.activity,
    });
  });

  it('a sensitive question’s reminder holds nothing but the question', async () => {
    const ch = teamsChannel();
    const q = tq({ format: 'TEXT', sensitive: true, answer: 'hunter2', text: 'Your PIN?' });
    await ch.remind!(q, await ch.deliver(q, CALLBACK), AGAIN);
    const body = JSON.stringify(teams.calls.at(-1)!.body);
    expect(body).toContain('Your PIN?');
    expect(body).not.toContain('hunter2');
  });

  it('refuses a receipt naming no activity, and throws the connector’s refusal', async () => {
    const ch = teamsChannel();
    const q = tq();
    const before = teams.calls.length;
    await expect(ch.remind!(q, { recipient: TEAMS_CONVERSATION }, AGAIN)).rejects.toThrow(
      /names no teams message/,
    );
    expect(teams.calls).toHaveLength(before);
    const receipt = await ch.deliver(q, CALLBACK);
    teams.failNext(403);
    await expect(ch.remind!(q, receipt, AGAIN)).rejects.toThrow(/^teams reply failed: HTTP 403$/);
  });
});

const T0 = 1_900_000_000_000;
const PLUGINS: Record<string, ChannelPlugin> = { discord: discordPlugin, teams: teamsPlugin };
const noLog = { info() {}, warn() {}, error() {} };

describe.each([
  ['discord', startDiscordHarness, /^FAILED: place: discord reply to message failed: HTTP 403 50001$/],
  ['teams', startTeamsHarness, /^FAILED: place: teams reply failed: HTTP 403$/],
] as const)('%s remind as an escalation step', (_name, start, failed) => {
  let h: ProviderHarness & { fake: { calls: unknown[] } };
  beforeAll(async () => {
    h = await start();
  });
  afterAll(() => h.close());

  it('a refused reminder is the step’s FAILED outcome; the next reminder still goes out', async () => {
    let now = T0;
    const clock = () => now;
    const store = createMemoryStore({ clock });
    const set = createChannelSet(
      { place: { config: h.config, implementation: PLUGINS[h.plugin]! } },
      { env: h.secrets, logger: noLog, publicBaseUrl: SETTINGS.publicBaseUrl },
    );
    const channels = channelPort(set, { place: h.plugin });
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
    try {
      const { question } = await engine.ask(
        AGENT,
        {
          text: 'Deploy?',
          format: 'CONFIRM',
          channel: 'place',
          recipient: h.recipient,
          timeoutSeconds: 60,
          escalation: [
            { afterSeconds: 10, action: 'REMIND' },
            { afterSeconds: 20, action: 'REMIND' },
          ],
        },
        { holdSeconds: 0 },
      );
      expect(h.deliveries()).toHaveLength(1);
      h.failNextDelivery();
      await tick(T0 + 10_000);
      const calls = h.fake.calls.length;
      await tick(T0 + 20_000);
      expect(h.fake.calls.length).toBeGreaterThan(calls);
      const steps = await engine.escalations((await store.get(question.id))!);
      expect(steps[0]!.outcome).toMatch(failed);
      expect(steps[1]).toMatchObject({ firedAt: T0 + 20_000, outcome: 'DELIVERED' });
    } finally {
      await engine.stop();
      await set.close();
    }
  });
});
