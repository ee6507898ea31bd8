// The SDK's verifyWebhook: accepts what the server signs, refuses anything else.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/client/index.ts';
import { webhookSecret } from './receiver.ts';

const SECRET = webhookSecret();
const BODY = JSON.stringify({ type: 'question.resolved', question: { id: 'q1', status: 'ANSWERED' } });

function signed(body = BODY, secret = SECRET, at = new Date()): Record<string, string> {
  return {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('msg_1', at, body),
  };
}

describe('verifyWebhook', () => {
  it('returns the event for a good signature, from a record, Headers or raw bytes', () => {
    expect(verifyWebhook(signed(), BODY, SECRET).question.id).toBe('q1');
    expect(verifyWebhook(new Headers(signed()), Buffer.from(BODY), SECRET).type).toBe('question.resolved');
    const upper = Object.fromEntries(Object.entries(signed()).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(verifyWebhook(upper, BODY, SECRET).question.id).toBe('q1');
  });

  it.each([
    ['a changed body', () => verifyWebhook(signed(), BODY.replace('q1', 'q2'), SECRET)],
    ['another secret', () => verifyWebhook(signed(BODY, webhookSecret()), BODY, SECRET)],
    ['a missing header', () => verifyWebhook({ ...signed(), 'webhook-signature': undefined }, BODY, SECRET)],
    [
      'an old timestamp',
      () => verifyWebhook(signed(BODY, SECRET, new Date(Date.now() - 600_000)), BODY, SECRET),
    ],
    [
      'another event type',
      () => {
        const body = JSON.stringify({ type: 'other', question: {} });
        return verifyWebhook(signed(body), body, SECRET);
      },
    ],
  ])('refuses %s', (_name, call) => {
    expect(call).toThrow(WebhookVerificationError);
  });
});
