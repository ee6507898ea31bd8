// API.md §22's mutations: delegation, quiet hours and digests, claims. Each calls one engine method.
import { builder } from '../builder.ts';
import { DateTime } from '../scalars.ts';
import { Delegation, NotificationPrefs, NotificationPrefsInput } from '../types/presence.ts';
import { Question } from '../types/question.ts';

builder.mutationFields((t) => ({
  setDelegation: t.field({
    type: Delegation,
    description:
      'Hands the caller’s questions to `to` until `until` (at most 90 days; not to oneself; a delegate’s own delegation is not followed). Replaces the caller’s delegation, if any.',
    authScopes: { operator: true },
    args: {
      to: t.arg.string({ required: true, description: 'The identity receiving the questions.' }),
      until: t.arg({ type: DateTime, required: true, description: 'When it ends.' }),
      reason: t.arg.string({ description: 'Why (at most 200 characters), shown to the delegate.' }),
    },
    resolve: (_root, { to, until, reason }, ctx) =>
      ctx.engine.presence.delegations.set(ctx.principal, {
        to,
        until: (until as unknown) instanceof Date ? (until as unknown as Date).getTime() : until,
        reason,
      }),
  }),
  endDelegation: t.boolean({
    description: 'Ends the caller’s delegation now; false when there was none.',
    authScopes: { operator: true },
    resolve: (_root, _args, ctx) => ctx.engine.presence.delegations.end(ctx.principal),
  }),
  setNotificationPrefs: t.field({
    type: NotificationPrefs,
    description: 'Sets the caller’s quiet hours and digest.',
    authScopes: { operator: true },
    args: {
      input: t.arg({ type: NotificationPrefsInput, required: true, description: 'Quiet hours and digest.' }),
    },
    resolve: (_root, { input }, ctx) =>
      ctx.engine.presence.prefs.set(ctx.principal, {
        quietHours: input.quietHours ?? null,
        digest: input.digest ?? 'NONE',
      }),
  }),
  claimQuestion: t.field({
    type: Question,
    description:
      'Marks a pending question as being looked at by the caller (shown to everyone; lapses after 15 minutes; another’s claim replaces it). Nobody is stopped from answering.',
    authScopes: { operator: true },
    args: { id: t.arg.id({ required: true, description: 'The question.' }) },
    resolve: async (_root, { id }, ctx) =>
      (await ctx.engine.presence.claim(ctx.principal, String(id))).question,
  }),
  unclaimQuestion: t.field({
    type: Question,
    description: 'Ends the claim on a question: the claimer’s own, or anyone’s for an operator.',
    authScopes: { operator: true },
    args: { id: t.arg.id({ required: true, description: 'The question.' }) },
    resolve: (_root, { id }, ctx) => ctx.engine.presence.unclaim(ctx.principal, String(id)),
  }),
}));
