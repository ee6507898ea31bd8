// A configured channel as operators see it (`channelDetails`, `tai channels list`): the engine
// reports it and the SDK returns it, so the one shape lives here, import-free for the client.

export interface ChannelDetail {
  name: string;
  /** The plugin it was made from (`slack`, `webhook`, a package name or a path). */
  plugin: string | null;
  /** Whether it has an inbound door (`POST /api/interactions/channels/{name}`). */
  inbound: boolean;
  /** Where a question without a recipient goes. */
  defaultRecipient: string | null;
  ready: boolean;
  /** What keeps it from working (e.g. a setting); empty when ready. */
  missing: string[];
}
