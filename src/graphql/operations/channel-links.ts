// API.md §22's channel links: ask a recipient to confirm a link, end one. Each calls one engine method.
import { builder } from '../builder.ts';
import { Question } from '../types/question.ts';

builder.mutationFields((t) => ({
  linkChannel: t.field({
    type: Question,
    description:
      'Asks `recipient` on `channel` (one that takes a recipient and answers back) to confirm, with a CONFIRM question, that it is the caller’s. A "yes" answered from that channel links it: the caller’s quiet hours then hold its deliveries. Returns the pending question.',
    authScopes: { operator: true },
    args: {
      channel: t.arg.string({ required: true, description: 'The channel’s name.' }),
      recipient: t.arg.string({ required: true, description: 'The recipient as that channel addresses it.' }),
    },
    resolve: (_root, { channel, recipient }, ctx) =>
      ctx.engine.linking.link(ctx.principal, channel, recipient),
  }),
  unlinkChannel: t.boolean({
    description: 'Ends the caller’s link of a channel recipient; false when they had none.',
    authScopes: { operator: true },
    args: {
      channel: t.arg.string({ required: true, description: 'The channel’s name.' }),
      recipient: t.arg.string({ required: true, description: 'The recipient as linked.' }),
    },
    resolve: (_root, { channel, recipient }, ctx) =>
      ctx.engine.linking.unlink(ctx.principal, channel, recipient),
  }),
}));
