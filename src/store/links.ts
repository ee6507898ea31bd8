// Short links: a channel's long link (an EXTERNAL question's link can be 8,192 characters;
// Slack's button takes 3,000, an SMS 1,600 with the question) sent as `{base}/l/{token}`, a
// redirect on our own origin. The token is a capability like a callback ticket (the link may
// embed the callback URL), so only its SHA-256 is kept. A link lives exactly as long as its
// question's record. Both stores implement it.

export interface ShortLinks {
  /** Keeps `url` under `tokenHash` for as long as question `id` lives; false when it is gone. */
  save(id: string, tokenHash: string, url: string): Promise<boolean>;
  /** The URL a live token hash names, or null (unknown, expired and gone look the same). */
  get(tokenHash: string): Promise<string | null>;
}
