// Short links for channels (API.md §9): a link longer than its channel carries (Slack's button
// takes 3,000 characters, Discord's 512, an SMS 1,600 with the question) is delivered as
// `{base}/l/{token}`, a redirect on our own origin. The token is a capability like a callback
// ticket (the link may embed the callback URL): 32 CSPRNG bytes, only its SHA-256 stored, the same
// 404 for every token that names nothing. GET on it never changes anything. Every delivery goes
// through `forChannel`: the first one at ask time, and each escalation step's (a REROUTE to
// another channel, a REMIND at every place), so no provider is handed a link it refuses.
import type { QuestionRecord } from '../../domain/question.ts';
import type { QuestionStore } from '../../store/types.ts';
import type { ChannelPort } from '../ports.ts';
import { hashTicket, mintTicket } from './tickets.ts';

export const SHORT_LINK_PATH = '/l';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface ShortLinkDeps {
  store: Pick<QuestionStore, 'links'>;
  channels: Pick<ChannelPort, 'instance'>;
  /** The origin short links live on; null: links are never shortened. */
  publicBaseUrl: string | null;
}

export function createShortLinks({ store, channels, publicBaseUrl }: ShortLinkDeps) {
  return {
    /**
     * The question as the channel it is addressed to (`q.channel`; `atPlace` readdresses a
     * REROUTE's) should get it: a link over that channel's limit shortened.
     */
    async forChannel(q: QuestionRecord): Promise<QuestionRecord> {
      const max = q.channel === null ? undefined : channels.instance?.(q.channel)?.linkMaxChars;
      if (q.link === null || max === undefined || q.link.length <= max || !publicBaseUrl) return q;
      const t = mintTicket();
      if (!(await store.links.save(q.id, t.hash, q.link))) return q;
      return { ...q, link: `${publicBaseUrl}${SHORT_LINK_PATH}/${t.ticket}` };
    },

    /** Where a short link's token leads, or null for any token that names nothing live. */
    async follow(token: string): Promise<string | null> {
      return TOKEN.test(token) ? store.links.get(hashTicket(token)) : null;
    },
  };
}
