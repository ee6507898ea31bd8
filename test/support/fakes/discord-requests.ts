// Interactions exactly as Discord sends them to the Interactions endpoint: JSON, signed with the
// application's Ed25519 key over `X-Signature-Timestamp` + the raw body.
import type { InboundRequest } from '../../../src/channels/types.ts';
import type { InteractionSigner } from './discord-api.ts';

export const DISCORD_USER = '80351110224678912';
export const DISCORD_APP = '1100000000000000001';
export const DISCORD_CHANNEL = '1100000000000000042';

let next = 1_200_000_000_000_000_000n;
const nextId = () => String(++next);

/** A click on a button or a choice in a select of the message the bot posted. */
export function componentClick(customId: string, opts: { values?: string[]; componentType?: number } = {}) {
  return {
    id: nextId(),
    application_id: DISCORD_APP,
    type: 3,
    token: `aW50ZXJhY3Rpb24${nextId()}`,
    version: 1,
    guild_id: '1100000000000000007',
    channel_id: DISCORD_CHANNEL,
    member: { user: { id: DISCORD_USER, username: 'ana', global_name: 'Ana' }, roles: [], permissions: '0' },
    data: {
      custom_id: customId,
      component_type: opts.componentType ?? (opts.values ? 3 : 2),
      ...(opts.values ? { values: opts.values } : {}),
    },
    message: { id: '1100000000000000100', channel_id: DISCORD_CHANNEL, content: '…', components: [] },
  };
}

/** A modal's submission: text inputs by custom_id, each in its action row. */
export function modalSubmit(customId: string, values: Record<string, string>) {
  return {
    id: nextId(),
    application_id: DISCORD_APP,
    type: 5,
    token: `aW50ZXJhY3Rpb24${nextId()}`,
    version: 1,
    channel_id: DISCORD_CHANNEL,
    user: { id: DISCORD_USER, username: 'ana' },
    data: {
      custom_id: customId,
      components: Object.entries(values).map(([id, value]) => ({
        type: 1,
        components: [{ type: 4, custom_id: id, value }],
      })),
    },
  };
}

export const ping = () => ({ id: nextId(), application_id: DISCORD_APP, type: 1, token: 'ping', version: 1 });

/** The request as the inbound door hands it to the plugin. */
export function discordRequest(
  signer: InteractionSigner,
  interaction: unknown,
  opts: { now?: number; signedAt?: number; headers?: Record<string, string> } = {},
): InboundRequest {
  const now = opts.now ?? Date.now();
  const body = JSON.stringify(interaction);
  return {
    rawBody: Buffer.from(body),
    headers: { ...signer.headers(body, opts.signedAt ?? Math.floor(now / 1000)), ...opts.headers },
    url: 'https://tai.example/api/interactions/channels/ops-discord',
    now,
  };
}
