// Activities exactly as the Bot Framework sends them to a bot's messaging endpoint: JSON, with a
// JWT from the fake's key set in `Authorization: Bearer`.
import type { InboundRequest } from '../../../src/channels/types.ts';
import { type FakeTeams, TEAMS_TENANT } from './teams-api.ts';

export const TEAMS_BOT = '28:bot-app-id';
export const TEAMS_USER = {
  id: '29:1user-teams-id',
  name: 'Ana Lima',
  aadObjectId: '6a1f0d3e-1111-4c2b-9d3e-000000000001',
};
export const TEAMS_CONVERSATION = '19:ops-channel-id@thread.tacv2';

let next = 0;

function envelope(fake: FakeTeams, type: string, extra: Record<string, unknown>) {
  return {
    type,
    id: `f:${Date.now()}-${++next}`,
    timestamp: new Date().toISOString(),
    serviceUrl: fake.serviceUrl,
    channelId: 'msteams',
    from: TEAMS_USER,
    recipient: { id: TEAMS_BOT, name: 'tai' },
    conversation: { id: TEAMS_CONVERSATION, conversationType: 'channel', tenantId: TEAMS_TENANT },
    channelData: { tenant: { id: TEAMS_TENANT } },
    ...extra,
  };
}

/** A card's Action.Submit: a message activity whose `value` is the submit data and the inputs. */
export function cardSubmit(
  fake: FakeTeams,
  value: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return envelope(fake, 'message', { value, replyToId: '1:1', ...extra });
}

/** The bot added to a conversation (Teams sends this on install). */
export function installed(fake: FakeTeams, conversation = TEAMS_CONVERSATION) {
  return envelope(fake, 'conversationUpdate', {
    from: TEAMS_USER,
    conversation: { id: conversation, conversationType: 'channel', tenantId: TEAMS_TENANT },
    membersAdded: [{ id: TEAMS_BOT }],
  });
}

/** The request as the inbound door hands it to the plugin, with a token from the fake. */
export async function teamsRequest(
  fake: FakeTeams,
  activity: unknown,
  opts: { token?: string; claims?: Record<string, unknown>; now?: number } = {},
): Promise<InboundRequest> {
  const token = opts.token ?? (await fake.token(opts.claims));
  return {
    rawBody: Buffer.from(JSON.stringify(activity)),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    url: 'https://tai.example/api/interactions/channels/ops-teams',
    now: opts.now ?? Date.now(),
  };
}

/** The manifest lines of a channel `ops-teams` pointed at the fake (app id and password from TEAMS_APP_ID / TEAMS_APP_PASSWORD). */
export function teamsChannelLines(teams: {
  openIdMetadataUrl: string;
  tokenUrl: string;
  serviceUrl: string;
}): string[] {
  return [
    'channels:',
    '  ops-teams:',
    '    plugin: teams',
    '    config:',
    '      appIdEnv: TEAMS_APP_ID',
    '      appPasswordEnv: TEAMS_APP_PASSWORD',
    `      defaultRecipient: "${TEAMS_CONVERSATION}"`,
    `      openIdMetadataUrl: ${teams.openIdMetadataUrl}`,
    `      tokenUrl: ${teams.tokenUrl}`,
    `      serviceUrl: ${teams.serviceUrl}`,
  ];
}
