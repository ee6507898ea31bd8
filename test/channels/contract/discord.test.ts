// The channel contract for `discord`: the loopback fake of Discord's REST API (messages posted
// and edited there), interactions signed with the application's Ed25519 key over the timestamp
// and the raw body, exactly as Discord posts them to the Interactions endpoint. Discord escapes
// Markdown in what it shows, so the harness reads texts back without the escapes.
import fc from 'fast-check';
import { DISCORD_INBOUND_MAX_BYTES } from '../../../src/channels/discord/plugin.ts';
import { type DiscordCall, type FakeDiscord, startFakeDiscord } from '../../support/fakes/discord-api.ts';
import {
  componentClick,
  DISCORD_APP,
  DISCORD_CHANNEL,
  DISCORD_USER,
} from '../../support/fakes/discord-requests.ts';
import type { ChannelHarness, Delivered } from './harness.ts';
import { runChannelContract, stringsOf } from './suite.ts';

const TOKEN = 'discord-contract-token-0001';
const POSTS = /^\/channels\/\d+\/messages$/;
const EDITS = /^\/channels\/\d+\/messages\/\d+$/;
let discord: FakeDiscord;

/** Every string of a call, Markdown escapes removed (`\#3` reads `#3`). */
const plain = (c: DiscordCall): string[] => stringsOf(c.body).map((s) => s.replace(/\\(.)/g, '$1'));

const found =
  (method: string, path: RegExp, pred: (strings: string[]) => boolean = () => true) =>
  async (marker: string): Promise<Delivered> => {
    const call = await discord.waitFor(method, path, (c) => {
      const strings = plain(c);
      return strings.some((s) => s.includes(marker)) && pred(strings);
    });
    return { strings: plain(call), raw: call };
  };

const signedClick = (customId: string) => {
  const body = JSON.stringify(componentClick(customId));
  return {
    body: Buffer.from(body),
    headers: { 'content-type': 'application/json', ...discord.signer.headers(body) },
  };
};

const discordHarness: ChannelHarness = {
  channel: 'ops-discord',
  async start() {
    discord = await startFakeDiscord(TOKEN);
    return {
      lines: [
        '  ops-discord:',
        '    plugin: discord',
        '    config:',
        '      botTokenEnv: DISCORD_BOT_TOKEN',
        `      publicKey: "${discord.publicKey}"`,
        `      applicationId: "${DISCORD_APP}"`,
        `      defaultRecipient: "${DISCORD_CHANNEL}"`,
        `      apiUrl: ${discord.apiUrl}`,
      ],
      env: { DISCORD_BOT_TOKEN: TOKEN },
    };
  },
  close: () => discord.close(),
  delivered: found('POST', POSTS, (s) => !s.some((x) => x.startsWith('Reminder'))),
  reminded: found('POST', POSTS, (s) => s.some((x) => x.startsWith('Reminder'))),
  resolved: {
    edited: found('PATCH', EDITS),
    says: {
      inbox: /Answered in the inbox by ops/,
      timedOut: /Timed out/,
      cancelled: (reason) => new RegExp(`Cancelled: ${reason}`),
      approvedWithChanges: /Answered in the inbox by ops: Approved with changes/,
    },
  },
  inbound: {
    answer(q, choice) {
      return 'confirm' in choice
        ? signedClick(`tai:c:${q.id}:${choice.confirm ? 1 : 0}`)
        : signedClick(`tai:s:${q.id}:${choice.select}`);
    },
    by: DISCORD_USER,
    signed: 'body',
    forged: fc
      .record({
        body: fc.oneof(
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 200 }),
        ),
        signature: fc.oneof(fc.stringMatching(/^[0-9a-f]{128}$/), fc.string({ maxLength: 140 })),
        timestamp: fc.oneof(fc.constant(String(Math.floor(Date.now() / 1000))), fc.string({ maxLength: 12 })),
        withSignature: fc.boolean(),
      })
      .map(({ body, signature, timestamp, withSignature }) => ({
        body: Buffer.from(body),
        headers: {
          'content-type': 'application/json',
          'x-signature-timestamp': encodeURIComponent(timestamp),
          ...(withSignature ? { 'x-signature-ed25519': encodeURIComponent(signature) } : {}),
        },
      })),
    maxBytes: DISCORD_INBOUND_MAX_BYTES,
  },
};

runChannelContract(discordHarness);
