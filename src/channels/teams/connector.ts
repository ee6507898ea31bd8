// The Bot Framework connector: proactive messages to a conversation, replies and card updates, over plain
// REST with the cached access token (auth.ts). Bounded time and bounded response reading.
import { isAllowedEndpoint } from '../config-schema.ts';
import { requestFailure } from '../failure-cause.ts';
import { cappedJson } from '../response-body.ts';
import type { ChannelContext } from '../types.ts';
import { TEAMS_TIMEOUT_MS } from './auth.ts';
import { CARD_CONTENT_TYPE } from './cards.ts';

type Obj = Record<string, unknown>;

export interface Connector {
  /** Posts an activity to the conversation; resolves with the new activity's id. */
  send(serviceUrl: string, conversationId: string, activity: Obj): Promise<string>;
  update(serviceUrl: string, conversationId: string, activityId: string, activity: Obj): Promise<void>;
  /**
   * Replies to an activity (the connector's ReplyToActivity): in a channel the reply lands in the
   * activity's thread, in a chat after it. Resolves with the reply's id.
   */
  reply(serviceUrl: string, conversationId: string, activityId: string, activity: Obj): Promise<string>;
}

export const cardActivity = (content: Obj, extra: Obj = {}): Obj => ({
  type: 'message',
  attachments: [{ contentType: CARD_CONTENT_TYPE, content }],
  ...extra,
});

export const textActivity = (text: string, extra: Obj = {}): Obj => ({
  type: 'message',
  textFormat: 'plain',
  text,
  ...extra,
});

function conversationUrl(serviceUrl: string, conversationId: string): string {
  return `${serviceUrl.replace(/\/+$/, '')}/v3/conversations/${encodeURIComponent(conversationId)}/activities`;
}

export function createConnector(ctx: ChannelContext, accessToken: () => Promise<string>): Connector {
  async function call(what: string, method: string, url: string, activity: Obj): Promise<Obj | null> {
    // A serviceUrl comes from a verified activity or the config; still only https (or loopback).
    if (!isAllowedEndpoint(url)) throw new Error(`teams ${what} failed: the service URL is not https`);
    const token = await accessToken();
    let res: Response;
    try {
      res = await ctx.fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(activity),
        redirect: 'error',
        signal: AbortSignal.timeout(TEAMS_TIMEOUT_MS),
      });
    } catch (err) {
      throw new Error(`teams ${what} failed: ${requestFailure(err)}`);
    }
    const json = await cappedJson(res);
    if (!res.ok) throw new Error(`teams ${what} failed: HTTP ${res.status}`);
    return typeof json === 'object' && json !== null ? (json as Obj) : null;
  }

  return {
    async send(serviceUrl, conversationId, activity) {
      const json = await call('send', 'POST', conversationUrl(serviceUrl, conversationId), activity);
      if (typeof json?.id !== 'string' || json.id === '')
        throw new Error('teams send returned no activity id');
      return json.id;
    },
    async reply(serviceUrl, conversationId, activityId, activity) {
      const url = `${conversationUrl(serviceUrl, conversationId)}/${encodeURIComponent(activityId)}`;
      const json = await call('reply', 'POST', url, { ...activity, replyToId: activityId });
      if (typeof json?.id !== 'string' || json.id === '')
        throw new Error('teams reply returned no activity id');
      return json.id;
    },
    async update(serviceUrl, conversationId, activityId, activity) {
      const url = `${conversationUrl(serviceUrl, conversationId)}/${encodeURIComponent(activityId)}`;
      await call('update', 'PUT', url, { ...activity, id: activityId });
    },
  };
}
