// Talking back to the person who clicked: an ephemeral reply through the click's response_url,
// or the FORM modal through views.open. Best effort: a failure is logged, the click still gets 200.
import type { WebClient } from '@slack/web-api';
import { isAllowedEndpoint } from '../config-schema.ts';
import { discardBody } from '../response-body.ts';
import type { ChannelContext } from '../types.ts';
import type { Notifier } from './events.ts';
import { failure, slackErrorCode } from './web-api.ts';

/** Slack waits 3 s for the click's answer; the reply must not hold it up longer. */
const RESPONSE_URL_TIMEOUT_MS = 2_000;

export function createNotifier(ctx: ChannelContext, web: () => WebClient): Notifier {
  return {
    async tell(responseUrl, text) {
      if (!responseUrl || !isAllowedEndpoint(responseUrl)) return;
      try {
        const res = await ctx.fetch(responseUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
          redirect: 'manual',
          signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS),
        });
        await discardBody(res);
      } catch (err) {
        ctx.logger.warn(
          { channel: ctx.name, err: err instanceof Error ? err.name : 'unknown' },
          'slack response_url failed',
        );
      }
    },

    async openModal(triggerId, view) {
      try {
        await web().views.open({ trigger_id: triggerId, view: view as never });
        return null;
      } catch (err) {
        ctx.logger.warn({ channel: ctx.name, err: failure('views.open', err).message }, 'slack modal failed');
        return slackErrorCode(err) ?? 'no answer from Slack';
      }
    },
  };
}
