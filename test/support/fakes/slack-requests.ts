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
