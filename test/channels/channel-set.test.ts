import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import type { ChannelContext, ChannelPlugin } from '../../src/channels/types.ts';
import { webhookPlugin } from '../../src/channels/webhook.ts';
import { recordOf } from '../../src/domain/question.ts';
import { channelQuestionOf } from '../../src/engine/deliveries/question.ts';
import { silentLogger } from '../../src/engine/logger.ts';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';
import { specOf } from '../support/fixtures.ts';

let receiver: HttpReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('channel set', () => {
  it('creates each declared instance with its own context and delivers through it', async () => {
    const seen: ChannelContext[] = [];
    const spy: ChannelPlugin = {
      ...webhookPlugin,
      create: (config, ctx) => {
        seen.push(ctx);
        return webhookPlugin.create(config as never, ctx);
      },
    } as ChannelPlugin;
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const set = createChannelSet(
      { bridge: { config: { url: receiver.url, secretEnv: 'HOOK' }, implementation: spy } },
      { env: { HOOK: secret }, logger: silentLogger, publicBaseUrl: 'https://tai.example/' },
    );
    expect([...set.names()]).toEqual(['bridge']);
    expect(set.get('nope')).toBeUndefined();
    expect(set.get('__proto__')).toBeUndefined();
    expect(seen[0]).toMatchObject({
      name: 'bridge',
      publicBaseUrl: 'https://tai.example',
      inboundUrl: 'https://tai.example/api/interactions/channels/bridge',
    });
    expect(seen[0]!.secret('HOOK')).toBe(secret);
    expect(seen[0]!.secret('UNSET')).toBeUndefined();
    const q = channelQuestionOf(recordOf(specOf({ channel: 'bridge' }), null));
    await set.get('bridge')!.deliver(q, 'https://tai.example/cb/T');
    expect(receiver.requests).toHaveLength(1);
    await set.close();
  });

  it('a plugin sees no media, verifier, asker or idempotency key, and no sensitive answer', () => {
    const spec = specOf({
      media: [{ kind: 'LINK', url: 'https://x.example' }],
      verifier: { name: 'stripe', config: {} },
      idempotencyKey: 'k1',
      sensitive: true,
    });
    const record = recordOf(spec, {
      status: 'ANSWERED',
      answer: 'hunter2',
      answeredBy: 'ops',
      answeredAt: 1,
      closedAt: 1,
      cancelReason: null,
    });
    const view = channelQuestionOf({ ...record, answer: 'hunter2' });
    expect(view).not.toHaveProperty('media');
    expect(view).not.toHaveProperty('verifier');
    expect(view).not.toHaveProperty('askedBy');
    expect(view).not.toHaveProperty('idempotencyKey');
    expect(view.answer).toBeNull();
    expect(view.status).toBe('ANSWERED');
  });
});
