// The Discord fake as a ProviderHarness (provider-harness.ts).
import { type FakeDiscord, startFakeDiscord } from './discord-api.ts';
import { componentClick, DISCORD_APP, DISCORD_CHANNEL, discordRequest } from './discord-requests.ts';
import { flipByte, type ProviderHarness } from './provider-harness.ts';

const TOKEN = 'discord-harness-token';

export async function startDiscordHarness(): Promise<ProviderHarness & { fake: FakeDiscord }> {
  const fake = await startFakeDiscord(TOKEN);
  const sent = (method: string, path: RegExp) => fake.callsTo(method, path).map((c) => c.body);
  return {
    fake,
    plugin: 'discord',
    config: {
      botTokenEnv: 'DISCORD_BOT_TOKEN',
      publicKey: fake.publicKey,
      applicationId: DISCORD_APP,
      defaultRecipient: DISCORD_CHANNEL,
      apiUrl: fake.apiUrl,
    },
    secrets: { DISCORD_BOT_TOKEN: TOKEN },
    recipient: DISCORD_CHANNEL,
    deliveries: () => sent('POST', /^\/channels\/\d+\/messages$/),
    edits: () => sent('PATCH', /^\/channels\/\d+\/messages\/\d+$/),
    waitForEdit: async (text) =>
      (
        await fake.waitFor('PATCH', /^\/channels\/\d+\/messages\/\d+$/, (c) =>
          JSON.stringify(c.body).includes(text),
        )
      ).body,
    confirm: async (questionId, yes) =>
      discordRequest(fake.signer, componentClick(`tai:c:${questionId}:${yes ? 1 : 0}`)),
    // The signature covers the timestamp and every byte of the body.
    tamper: (request) => ({ ...request, rawBody: flipByte(request.rawBody, request.rawBody.length >> 1) }),
    failNextDelivery: () => fake.failNext(403, 50001, 'Missing Access'),
    close: () => fake.close(),
  };
}
