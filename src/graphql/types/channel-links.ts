// API.md §22's channel links: the ChannelLink type, and Viewer.channelLinks (the caller's links,
// whose deliveries their quiet hours hold).
import type { ChannelLink as Link } from '../../engine/people/channel-links.ts';
import { builder } from '../builder.ts';
import { DateTime } from '../scalars.ts';
import { Viewer } from './viewer.ts';

export const ChannelLink = builder.objectRef<Link>('ChannelLink').implement({
  description:
    'A channel recipient confirmed, by a "yes" answered from that channel, as the person’s: their quiet hours hold its deliveries.',
  fields: (t) => ({
    channel: t.exposeString('channel', { description: 'The channel’s name (the manifest’s).' }),
    recipient: t.exposeString('recipient', {
      description:
        'The recipient as that channel addresses it (a Slack user id, a Telegram chat id, a phone number).',
    }),
    confirmedBy: t.exposeString('confirmedBy', {
      description: 'The channel identity that answered yes (`<channel>:<provider user id>`).',
    }),
    linkedAt: t.field({ type: DateTime, description: 'When it was confirmed.', resolve: (l) => l.linkedAt }),
  }),
});

builder.objectFields(Viewer, (t) => ({
  channelLinks: t.field({
    type: [ChannelLink],
    description: 'The channel recipients linked to the caller, newest first (at most 10).',
    authScopes: { operator: true },
    resolve: (p, _args, ctx) => ctx.engine.linking.list(p),
  }),
}));
