// A complete small channel plugin: pushes each question to an ntfy-style topic URL as plain text
// with the callback URL as the click target, and posts a note when the question is resolved.
// Load it from a manifest with `plugin: ./examples/channels/ntfy-channel.ts`.

import type { ChannelPlugin, ChannelQuestion, DeliveryRecord } from 'tai-interactions/channel';
import { z } from 'zod';

const config = z.strictObject({
  // The topic to publish to: https, or http on a loopback host for tests.
  topicUrl: z.url({ protocol: /^https?$/ }),
  // The name of the environment variable that holds the access token (never the token itself).
  tokenEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/),
});

const plugin: ChannelPlugin<typeof config> = {
  name: 'ntfy',
  config,
  create(cfg, ctx) {
    async function publish(title: string, message: string, click?: string): Promise<void> {
      const token = ctx.secret(cfg.tokenEnv);
      if (!token) throw new Error(`${cfg.tokenEnv} is not set`);
      const res = await ctx.fetch(cfg.topicUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, title, ...(click ? { click } : {}) },
        body: message,
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`the topic answered ${res.status}`);
    }

    return {
      // The person taps the notification and answers on the callback page.
      async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
        // The choices are part of the question: a SELECT shows its options under the text.
        const options = question.options?.map((o, i) => `${i + 1}. ${o}`).join('\n');
        await publish(
          'A question for you',
          options ? `${question.text}\n${options}` : question.text,
          callbackUrl,
        );
        return { topic: cfg.topicUrl };
      },
      async onResolved(question: ChannelQuestion): Promise<void> {
        await publish('Question closed', `${question.text}\n→ ${question.status.toLowerCase()}`);
      },
    };
  },
};

export default plugin;
