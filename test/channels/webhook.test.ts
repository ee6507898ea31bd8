import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookPlugin } from '../../src/channels/webhook.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';

// A Standard Webhooks secret: whsec_ + base64 of 32 bytes.
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET';
let receiver: HttpReceiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

function channel(secrets: Record<string, string | undefined> = { HOOK_SECRET: SECRET }, url = receiver.url) {
  const config = webhookPlugin.config.parse({ url, secretEnv: 'HOOK_SECRET' });
  return webhookPlugin.create(config, channelContext('bridge', secrets));
}

/** The last request, its signature checked with the standardwebhooks package itself. */
function lastVerified(): Record<string, unknown> {
  const req = receiver.requests.at(-1)!;
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
  return new Webhook(SECRET).verify(req.body.toString('utf8'), headers) as Record<string, unknown>;
}

describe('webhook channel', () => {
  it('POSTs a signed question.asked with the question and its callback URL', async () => {
    receiver.respondWith(204);
    const q = channelQuestion({ format: 'SELECT', options: ['a', 'b'], recipient: 'team-a' });
    const receipt = await channel().deliver(q, CALLBACK);
    expect(receipt).toEqual({ messageId: `msg_${q.id}_asked` });
    const body = lastVerified();
    expect(body).toMatchObject({ type: 'question.asked', callbackUrl: CALLBACK });
    expect(body.question).toMatchObject({
      id: q.id,
      text: 'Ship it?',
      format: 'SELECT',
      options: ['a', 'b'],
      recipient: 'team-a',
    });
    expect(receiver.requests.at(-1)!.headers['webhook-id']).toBe(`msg_${q.id}_asked`);
    // Media is not part of a channel question at all.
    expect(JSON.stringify(body)).not.toContain('media');
  });

  it('a signature made with another secret does not verify', async () => {
    receiver.respondWith(200);
    await channel().deliver(channelQuestion(), CALLBACK);
    const req = receiver.requests.at(-1)!;
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const other = new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`);
    expect(() => other.verify(req.body.toString('utf8'), headers)).toThrow();
  });

  it.each([300, 404, 410, 500])('a %i answer makes deliver throw', async (status) => {
    receiver.respondWith(status);
    await expect(channel().deliver(channelQuestion(), CALLBACK)).rejects.toThrow(`answered ${status}`);
  });

  it.each([200, 299])('a %i answer is delivered', async (status) => {
    receiver.respondWith(status);
    await expect(channel().deliver(channelQuestion(), CALLBACK)).resolves.toBeDefined();
  });

  it('a missing or malformed secret fails before anything is sent, naming only the variable', async () => {
    const before = receiver.requests.length;
    await expect(channel({}).deliver(channelQuestion(), CALLBACK)).rejects.toThrow('HOOK_SECRET');
    const bad = channel({ HOOK_SECRET: 'whsec_!!not-base64!!' }).deliver(channelQuestion(), CALLBACK);
    await expect(bad).rejects.toThrow(/HOOK_SECRET/);
    await expect(bad).rejects.not.toThrow(/not-base64/);
    expect(receiver.requests.length).toBe(before);
  });

  it('an unreachable receiver makes deliver throw', async () => {
    await expect(
      channel(undefined, 'http://127.0.0.1:9/hook').deliver(channelQuestion(), CALLBACK),
    ).rejects.toThrow();
  });

  it('onResolved posts question.resolved, without the answer when sensitive', async () => {
    receiver.respondWith(200);
    const answered = channelQuestion({ status: 'ANSWERED', answer: true, answeredBy: 'ops' });
    await channel().onResolved!(answered, null);
    expect(lastVerified()).toEqual({
      type: 'question.resolved',
      question: { id: answered.id, status: 'ANSWERED', answer: true, answeredBy: 'ops', cancelReason: null },
    });
    await channel().onResolved!({ ...answered, sensitive: true, answer: 'hunter2' }, null);
    expect((lastVerified().question as { answer: unknown }).answer).toBeNull();
    expect(receiver.requests.at(-1)!.body.toString()).not.toContain('hunter2');
  });

  it('its config refuses a non-https URL and unknown keys', () => {
    expect(webhookPlugin.config.safeParse({ url: 'http://example.com/h', secretEnv: 'X' }).success).toBe(
      false,
    );
    expect(
      webhookPlugin.config.safeParse({ url: 'https://example.com/h', secretEnv: 'X', extra: 1 }).success,
    ).toBe(false);
    expect(webhookPlugin.config.safeParse({ url: 'http://localhost:8080/h', secretEnv: 'X' }).success).toBe(
      true,
    );
  });
});
