// Slack's Web API through @slack/web-api: one client per channel, made when first used (the bot
// token is read then), without the client's own retries or logging.
import { ErrorCode, LogLevel, type Logger as SlackLogger, WebClient } from '@slack/web-api';
import { requestFailure } from '../failure-cause.ts';
import type { ChannelContext } from '../types.ts';

/** How long one Web API call may take. */
export const SLACK_TIMEOUT_MS = 10_000;

// The client's own logging could carry request details; we log what matters ourselves.
const quietLogger: SlackLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};

/** Slack's error code of a failed call (`invalid_arguments`), when Slack answered one. */
export function slackErrorCode(err: unknown): string | null {
  const code = (err as { data?: { error?: unknown } } | null)?.data?.error;
  return typeof code === 'string' && /^[a-z0-9_.-]{1,64}$/.test(code) ? code : null;
}

/**
 * The platform error code (`channel_not_found`), the HTTP status, a rate limit or the network
 * error's code: never a token or a request.
 */
export function failure(method: string, err: unknown): Error {
  const e = err as { code?: unknown; data?: { error?: unknown }; statusCode?: unknown; original?: unknown };
  const code = slackErrorCode(err);
  if (code !== null) return new Error(`slack ${method} failed: ${code}`);
  if (e.code === ErrorCode.HTTPError && typeof e.statusCode === 'number') {
    return new Error(`slack ${method} failed: HTTP ${e.statusCode}`);
  }
  if (e.code === ErrorCode.RateLimitedError) return new Error(`slack ${method} failed: rate limited`);
  if (e.code === ErrorCode.RequestError) {
    return new Error(`slack ${method} failed: ${requestFailure(e.original)}`);
  }
  return new Error(`slack ${method} failed`);
}

/** The channel's client; throws when the bot token is not set. */
export function createSlackWebApi(ctx: ChannelContext, tokenEnv: string, apiUrl?: string): () => WebClient {
  let client: WebClient | null = null;
  return () => {
    const token = ctx.secret(tokenEnv);
    if (!token) throw new Error(`the Slack bot token (${tokenEnv}) is not set`);
    client ??= new WebClient(token, {
      slackApiUrl: apiUrl ?? 'https://slack.com/api/',
      fetch: ctx.fetch,
      logger: quietLogger,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: SLACK_TIMEOUT_MS,
      allowAbsoluteUrls: false,
    });
    return client;
  };
}
