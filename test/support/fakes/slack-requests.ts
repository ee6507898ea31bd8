// Interactivity requests exactly as Slack sends them: `payload=<json>` form-encoded, signed with
// the app's signing secret (`v0=` HMAC-SHA256 of `v0:{timestamp}:{body}`).
import { createHmac } from 'node:crypto';
import type { InboundRequest } from '../../../src/channels/types.ts';

export function signSlack(secret: string, timestamp: number, body: string | Buffer): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

export function slackRequest(
  secret: string,
  payload: unknown,
  opts: { now?: number; signedAt?: number; signature?: string } = {},
): InboundRequest {
  const now = opts.now ?? Date.now();
  const ts = opts.signedAt ?? Math.floor(now / 1000);
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return {
    rawBody: Buffer.from(body),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': opts.signature ?? signSlack(secret, ts, body),
    },
    url: 'https://tai.example/api/interactions/channels/ops-slack',
    now,
  };
}

export function click(questionValue: string, actionId: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'block_actions',
    user: { id: 'U024BE7LH', username: 'ana' },
    trigger_id: '1234.5678.abcd',
    actions: [{ action_id: actionId, block_id: 'b', value: questionValue, type: 'button' }],
    ...extra,
  };
}

/**
 * A `block_actions` payload in full, as Slack sends it for a click on a message the app posted:
 * besides the action, the whole message (its text and every block) and the state of its inputs
 * are repeated, so a long question makes a large click.
 */
export function clickOnMessage(
  posted: { channel: string; ts: string; text: string; blocks: unknown[] },
  action: Record<string, unknown>,
  responseUrl = 'https://hooks.slack.com/actions/T0001/1234/abcd',
) {
  return {
    type: 'block_actions',
    user: { id: 'U024BE7LH', username: 'ana', name: 'ana', team_id: 'T0001' },
    api_app_id: 'A0001',
    token: 'verification-token-unused',
    container: { type: 'message', message_ts: posted.ts, channel_id: posted.channel, is_ephemeral: false },
    trigger_id: '1234.5678.abcd',
    team: { id: 'T0001', domain: 'example' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: posted.channel, name: 'ops' },
    message: {
      type: 'message',
      subtype: 'bot_message',
      text: posted.text,
      ts: posted.ts,
      bot_id: 'B0001',
      blocks: posted.blocks,
    },
    state: { values: {} },
    response_url: responseUrl,
    actions: [{ ...action, action_ts: `${posted.ts.split('.')[0]}.100000` }],
  };
}

/** The form-encoded body Slack posts for `payload`, and its signed headers. */
export function slackBody(secret: string, payload: unknown, now = Date.now()) {
  const ts = Math.floor(now / 1000);
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': signSlack(secret, ts, body),
    },
  };
}

/** Posts `payload` to a server's Slack door as Slack would (signed now); the door's response. */
export function postSlack(
  base: string,
  secret: string,
  payload: unknown,
  channel = 'ops-slack',
): Promise<Response> {
  const { body, headers } = slackBody(secret, payload);
  return fetch(`${base}/api/interactions/channels/${channel}`, { method: 'POST', headers, body });
}
