// The `slack` channel (API.md §9): Block Kit messages through @slack/web-api, interactivity at the
// channel's inbound door (signing secret, 300 s window), and the message edited after resolution.
import { LogLevel, type Logger as SlackLogger, WebClient } from '@slack/web-api';
import { z } from 'zod';
import { endpointUrl, envName, isAllowedEndpoint } from '../config-schema.ts';
import type {
  ChannelContext,
  ChannelPlugin,
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  DeliveryReceipt,
  InboundEvent,
  InboundRequest,
  LookupOutcome,
} from '../types.ts';
import { formFields, formModal, questionBlocks, textBlocks } from './blocks.ts';
import { cut, escapeMrkdwn } from './escape.ts';
import { interpret, type ParsedPayload, parsePayload } from './inbound.ts';
import { checkSlackSignature } from './signature.ts';

/** How long one Web API call or response_url post may take. */
export const SLACK_TIMEOUT_MS = 10_000;
const RESPONSE_URL_TIMEOUT_MS = 2_000;
/** Channel (`C…`, `G…`), DM (`D…`) or user (`U…`, `W…`: sent as a DM) ids. */
const RECIPIENT = /^[CGDUW][A-Z0-9]{2,30}$/;

const config = z.strictObject({
  botTokenEnv: envName,
  signingSecretEnv: envName,
  defaultRecipient: z.string().regex(RECIPIENT, { message: 'must be a Slack channel or user id' }).optional(),
  apiUrl: endpointUrl.optional(),
});
type SlackConfig = z.output<typeof config>;

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

const OK: ChannelResponse = { status: 200 };

function closedText(q: ChannelQuestion): string {
  if (q.status === 'TIMED_OUT') return 'This question timed out.';
  if (q.status === 'CANCELLED') return 'This question was cancelled.';
  return 'This question was already answered.';
}

function answerText(q: ChannelQuestion): string {
  if (q.format === 'CONFIRM') return q.answer === true ? 'Yes' : 'No';
  const text = typeof q.answer === 'string' ? q.answer : JSON.stringify(q.answer ?? null);
  return cut(text, 500);
}

/** The line that replaces the buttons once the question is closed. */
export function resolvedLine(q: ChannelQuestion, channelName: string): string {
  if (q.status === 'TIMED_OUT') return 'Timed out';
  if (q.status === 'CANCELLED')
    return q.cancelReason ? `Cancelled: ${escapeMrkdwn(q.cancelReason)}` : 'Cancelled';
  if (q.sensitive) return 'Answered';
  const by = q.answeredBy ?? '';
  const prefix = `${channelName}:`;
  if (by.startsWith(prefix)) {
    const userId = by.slice(prefix.length);
    // A user id from Slack itself; anything else is shown as plain text.
    const who = /^[UW][A-Z0-9]{2,30}$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
    return `Answered by ${who}: ${escapeMrkdwn(answerText(q))}`;
  }
  if (by === 'callback') return `Answered on the answer page: ${escapeMrkdwn(answerText(q))}`;
  return `Answered in the inbox by ${escapeMrkdwn(by || 'someone')}`;
}

function createSlackChannel(cfg: SlackConfig, ctx: ChannelContext) {
  let client: WebClient | null = null;
  function web(): WebClient {
    const token = ctx.secret(cfg.botTokenEnv);
    if (!token) throw new Error(`the Slack bot token (${cfg.botTokenEnv}) is not set`);
    client ??= new WebClient(token, {
      slackApiUrl: cfg.apiUrl ?? 'https://slack.com/api/',
      fetch: ctx.fetch,
      logger: quietLogger,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: SLACK_TIMEOUT_MS,
      allowAbsoluteUrls: false,
    });
    return client;
  }

  /** The platform error code only (`channel_not_found`): never a token or a request. */
  function failure(method: string, err: unknown): Error {
    const code = (err as { data?: { error?: unknown } }).data?.error;
    return new Error(`slack ${method} failed${typeof code === 'string' ? `: ${code}` : ''}`);
  }

  async function tellClicker(responseUrl: string | undefined, text: string): Promise<void> {
    if (!responseUrl || !isAllowedEndpoint(responseUrl)) return;
    try {
      const res = await ctx.fetch(responseUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
        redirect: 'manual',
        signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      ctx.logger.warn(
        { channel: ctx.name, err: err instanceof Error ? err.name : 'unknown' },
        'slack response_url failed',
      );
    }
  }

  function problem(outcome: ClaimOutcome | LookupOutcome): string | null {
    switch (outcome.kind) {
      case 'recorded':
      case 'duplicate':
      case 'pending':
        return null;
      case 'invalid':
        return `That answer was not accepted: ${outcome.message}`;
      case 'closed':
        return closedText(outcome.question);
      default:
        return 'This question is no longer available.';
    }
  }

  function toEvent(parsed: Exclude<ParsedPayload, null | { type: 'other' }>): InboundEvent {
    const { event } = parsed;
    if (event.kind === 'ignore') return { kind: 'ignore', response: OK };
    const responseUrl = parsed.type === 'block_actions' ? parsed.payload.response_url : undefined;
    if (event.kind === 'open-form') {
      return {
        kind: 'show',
        question: { id: event.questionId },
        respond: async (outcome) => {
          const fields = outcome.kind === 'pending' ? formFields(outcome.question.schema) : null;
          if (outcome.kind !== 'pending' || !fields) {
            await tellClicker(responseUrl, problem(outcome) ?? 'This form cannot be shown here.');
            return OK;
          }
          try {
            await web().views.open({
              trigger_id: event.triggerId,
              view: formModal(outcome.question, fields) as never,
            });
          } catch (err) {
            ctx.logger.warn(
              { channel: ctx.name, err: failure('views.open', err).message },
              'slack modal failed',
            );
          }
          return OK;
        },
      };
    }
    const firstField =
      parsed.type === 'view_submission' ? Object.keys(parsed.payload.view.state.values)[0] : undefined;
    return {
      kind: 'answer',
      question: { id: event.questionId },
      by: event.by,
      answer: event.answer,
      respond: async (outcome) => {
        const message = problem(outcome);
        if (message === null) return OK;
        if (parsed.type === 'view_submission') {
          // Shown inside the modal, under its first field; the modal stays open.
          return firstField
            ? {
                status: 200,
                body: { response_action: 'errors', errors: { [firstField]: cut(message, 150) } },
              }
            : OK;
        }
        await tellClicker(responseUrl, message);
        return OK;
      },
    };
  }

  return {
    ...(cfg.defaultRecipient ? { defaultRecipient: cfg.defaultRecipient } : {}),
    needsRecipient: true,
    checkRecipient(recipient: string): string | null {
      return RECIPIENT.test(recipient) ? null : 'must be a Slack channel id (C…, G…) or user id (U…)';
    },

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryReceipt> {
      const recipient = question.recipient ?? cfg.defaultRecipient;
      if (!recipient) throw new Error('no recipient and no defaultRecipient');
      const client = web();
      let res: { channel?: string; ts?: string };
      try {
        res = await client.chat.postMessage({
          channel: recipient,
          text: escapeMrkdwn(cut(question.text, 3000)),
          blocks: questionBlocks(question, callbackUrl) as never,
          unfurl_links: false,
          unfurl_media: false,
          link_names: false,
          parse: 'none',
        });
      } catch (err) {
        throw failure('chat.postMessage', err);
      }
      if (!res.channel || !res.ts) throw new Error('slack chat.postMessage returned no message reference');
      return { recipient, channel: res.channel, ts: res.ts };
    },

    async inbound(req: InboundRequest): Promise<InboundEvent> {
      const secret = ctx.secret(cfg.signingSecretEnv);
      if (!secret) return { kind: 'reject', status: 500, reason: `${cfg.signingSecretEnv} is not set` };
      const check = checkSlackSignature(secret, req.headers, req.rawBody, req.now);
      if (check !== 'ok') return { kind: 'reject', status: 401, reason: `slack signature ${check}` };
      const parsed = interpret(parsePayload(req.rawBody));
      if (parsed === null)
        return { kind: 'reject', status: 400, reason: 'not a Slack interactivity payload' };
      if (parsed.type === 'other') return { kind: 'ignore', response: OK };
      return toEvent(parsed);
    },

    async onResolved(question: ChannelQuestion, receipt: DeliveryReceipt | null): Promise<void> {
      const channel = receipt?.channel;
      const ts = receipt?.ts;
      if (typeof channel !== 'string' || typeof ts !== 'string') return;
      const line = resolvedLine(question, ctx.name);
      const client = web();
      try {
        await client.chat.update({
          channel,
          ts,
          text: line,
          blocks: [
            ...textBlocks(question),
            { type: 'context', elements: [{ type: 'mrkdwn', text: line }] },
          ] as never,
          link_names: false,
          parse: 'none',
        });
      } catch (err) {
        throw failure('chat.update', err);
      }
    },
  };
}

export const slackPlugin: ChannelPlugin<typeof config> = {
  name: 'slack',
  config,
  create: createSlackChannel,
};
