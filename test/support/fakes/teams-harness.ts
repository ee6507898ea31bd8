// The Teams fake as a ProviderHarness (provider-harness.ts). The Bot Framework signs no body: the
// token is what a changed byte breaks, so `tamper` changes a byte of the token's signature.
import { flipByte, type ProviderHarness } from './provider-harness.ts';
import { type FakeTeams, startFakeTeams } from './teams-api.ts';
import { cardSubmit, TEAMS_CONVERSATION, teamsRequest } from './teams-requests.ts';

const APP_ID = '00000000-0000-0000-0000-0000000ba7e5';
const PASSWORD = 'teams-harness-password';

export async function startTeamsHarness(): Promise<ProviderHarness & { fake: FakeTeams }> {
  const fake = await startFakeTeams(APP_ID, PASSWORD);
  const sent = (method: string, path: RegExp) => fake.callsTo(method, path).map((c) => c.body);
  const updates = /^\/v3\/conversations\/[^/]+\/activities\/[^/]+$/;
  return {
    fake,
    plugin: 'teams',
    config: {
      appIdEnv: 'TEAMS_APP_ID',
      appPasswordEnv: 'TEAMS_APP_PASSWORD',
      defaultRecipient: TEAMS_CONVERSATION,
      openIdMetadataUrl: fake.openIdMetadataUrl,
      tokenUrl: fake.tokenUrl,
      serviceUrl: fake.serviceUrl,
    },
    secrets: { TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: PASSWORD },
    recipient: TEAMS_CONVERSATION,
    // Cards only: the bot's own text replies (install greeting, refusals) are not deliveries.
    deliveries: () =>
      sent('POST', /^\/v3\/conversations\/[^/]+\/activities$/).filter((b) => 'attachments' in b),
    edits: () => sent('PUT', updates),
    waitForEdit: async (text) =>
      (await fake.waitFor('PUT', updates, (c) => JSON.stringify(c.body).includes(text))).body,
    confirm: (questionId, yes) =>
      teamsRequest(fake, cardSubmit(fake, { tai: 'c', q: questionId, i: yes ? 1 : 0 })),
    tamper: (request) => {
      const auth = String(request.headers.authorization);
      // A byte in the middle of the signature (the last characters carry base64 padding bits).
      const changed = flipByte(Buffer.from(auth), auth.length - 20).toString();
      return { ...request, headers: { ...request.headers, authorization: changed } };
    },
    failNextDelivery: () => fake.failNext(403),
    close: () => fake.close(),
  };
}
