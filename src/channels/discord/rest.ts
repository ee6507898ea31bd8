// Discord's REST API through @discordjs/rest: one client per channel, made when first used, on
// the channel's `fetch` (bounded responses), without the client's retries (the outbox retries)
// and refusing to wait out a rate limit (a delivery must fail fast, not hang the ask).
import { DiscordAPIError, HTTPError, RateLimitError, REST } from '@discordjs/rest';
import { requestFailure } from '../failure-cause.ts';
import type { ChannelContext } from '../types.ts';

/** How long one REST call may take. */
export const DISCORD_TIMEOUT_MS = 10_000;

export const DISCORD_DEFAULT_API_URL = 'https://discord.com/api/v10';

/** `https://discord.com/api/v10` → the client's `api` and `version` options. */
export function splitApiUrl(apiUrl: string): { api: string; version: string } | null {
  const m = /^(.*)\/v(\d{1,3})\/?$/.exec(apiUrl);
  return m ? { api: m[1]!, version: m[2]! } : null;
}

/**
 * Discord's JSON error code (`10003` Unknown Channel), the HTTP status, a rate limit or the
 * network error's code: never the URL (a webhook route carries the interaction token) or a body.
 */
export function failure(what: string, err: unknown): Error {
  if (err instanceof DiscordAPIError) {
    const code = typeof err.code === 'number' ? ` ${err.code}` : '';
    return new Error(`discord ${what} failed: HTTP ${err.status}${code}`);
  }
  if (err instanceof HTTPError) return new Error(`discord ${what} failed: HTTP ${err.status}`);
  if (err instanceof RateLimitError) return new Error(`discord ${what} failed: rate limited`);
  return new Error(`discord ${what} failed: ${requestFailure(err)}`);
}

export interface DiscordRest {
  /** Bot-authenticated calls (messages); throws when the bot token is not set. */
  bot(): REST;
  /** Interaction callbacks and webhook edits, which the interaction token authorises. */
  open(): REST;
  close(): void;
}

export function createDiscordRest(ctx: ChannelContext, tokenEnv: string, apiUrl: string): DiscordRest {
  const { api, version } = splitApiUrl(apiUrl) ?? { api: apiUrl, version: '10' };
  const make = () =>
    new REST({
      api,
      version,
      timeout: DISCORD_TIMEOUT_MS,
      retries: 0,
      rejectOnRateLimit: () => true,
      // Sweepers are timers; nothing here lives long enough to need them.
      hashSweepInterval: 0,
      handlerSweepInterval: 0,
      makeRequest: ctx.fetch as never,
    });
  let bot: REST | null = null;
  let open: REST | null = null;
  return {
    bot() {
      const token = ctx.secret(tokenEnv);
      if (!token) throw new Error(`the Discord bot token (${tokenEnv}) is not set`);
      bot ??= make();
      // Set on every call: the client forgets a token Discord answered 401 for.
      bot.setToken(token);
      return bot;
    },
    open() {
      open ??= make();
      return open;
    },
    close() {
      bot?.clearHashSweeper();
      bot?.clearHandlerSweeper();
      open?.clearHashSweeper();
      open?.clearHandlerSweeper();
    },
  };
}
