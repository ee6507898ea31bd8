// API.md §22's types: a person's delegation, quiet hours and digest, and the fields §22 adds to
// Question (onBehalfOf, claimedBy, claimedAt), Vote (onBehalfOf) and Viewer (delegation,
// notificationPrefs, actingFor). Added to the existing types here, so their own files stay as they were.
import type { Delegation as DelegationRecord } from '../../domain/delegation.ts';
import type {
  DIGESTS,
  NotificationPrefs as Prefs,
  QuietHours as Quiet,
} from '../../domain/notification-prefs.ts';
import { builder } from '../builder.ts';
import { DateTime } from '../scalars.ts';
import { Vote } from './approval.ts';
import { Question } from './question.ts';
import { Viewer } from './viewer.ts';

export const Delegation = builder.objectRef<DelegationRecord>('Delegation').implement({
  description: 'A person’s questions handed to another identity until a time (out of office).',
  fields: (t) => ({
    from: t.exposeString('from', { description: 'The person who is away.' }),
    to: t.exposeString('to', {
      description: 'Who sees, answers and is notified of their questions meanwhile.',
    }),
    until: t.field({ type: DateTime, description: 'When it ends.', resolve: (d) => d.until }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why, as the person wrote it.' }),
    setAt: t.field({ type: DateTime, description: 'When it was set.', resolve: (d) => d.setAt }),
  }),
});

export const DigestEnum = builder.enumType('Digest', {
  description: 'How held notifications are batched: none, one an hour, or one a day.',
  values: {
    NONE: { description: 'Every notification alone, when due (held only during quiet hours).' },
    HOURLY: { description: 'Held until the next full hour (local time), then one digest.' },
    DAILY: { description: 'Held until the end of quiet hours (09:00 local without them), then one digest.' },
  } satisfies Record<(typeof DIGESTS)[number], { description: string }>,
});

export const QuietHours = builder.objectRef<Quiet>('QuietHours').implement({
  description: 'The local times between which notifications are held.',
  fields: (t) => ({
    from: t.exposeString('from', { description: '"HH:MM": holding starts.' }),
    to: t.exposeString('to', {
      description: '"HH:MM": holding ends (the next day when earlier than `from`).',
    }),
    timeZone: t.exposeString('timeZone', { description: 'The IANA time zone of `from` and `to`.' }),
  }),
});

export const NotificationPrefs = builder.objectRef<Prefs>('NotificationPrefs').implement({
  description: 'When pushes, e-mails and direct messages reach a person.',
  fields: (t) => ({
    quietHours: t.field({
      type: QuietHours,
      nullable: true,
      description: 'Notifications held meanwhile; null: none.',
      resolve: (p) => p.quietHours,
    }),
    digest: t.field({
      type: DigestEnum,
      description: 'How held notifications are batched.',
      resolve: (p) => p.digest,
    }),
  }),
});

export const QuietHoursInput = builder.inputType('QuietHoursInput', {
  description: 'Quiet hours: `from` and `to` as "HH:MM" in `timeZone`.',
  fields: (t) => ({
    from: t.string({ required: true, description: '"HH:MM", 00:00 to 23:59.' }),
    to: t.string({ required: true, description: '"HH:MM"; differs from `from`.' }),
    timeZone: t.string({ required: true, description: 'An IANA time zone, e.g. "Europe/Paris".' }),
  }),
});

export const NotificationPrefsInput = builder.inputType('NotificationPrefsInput', {
  description: 'A person’s quiet hours and digest; absent quietHours: none.',
  fields: (t) => ({
    quietHours: t.field({ type: QuietHoursInput, description: 'Null or absent: no quiet hours.' }),
    digest: t.field({ type: DigestEnum, description: 'Default NONE.' }),
  }),
});

builder.objectFields(Question, (t) => ({
  onBehalfOf: t.string({
    nullable: true,
    description: 'When a delegate answered: the person they answered for (`answeredBy` is the delegate).',
    resolve: (q) => q.onBehalfOf ?? null,
  }),
  claimedBy: t.string({
    nullable: true,
    description: 'Who is looking at this pending question (a claim lapses after 15 minutes); null: nobody.',
    resolve: async (q, _args, ctx) => (await ctx.engine.presence.claimOf(q))?.by ?? null,
  }),
  claimedAt: t.field({
    type: DateTime,
    nullable: true,
    description: 'When it was claimed.',
    resolve: async (q, _args, ctx) => (await ctx.engine.presence.claimOf(q))?.at ?? null,
  }),
}));

builder.objectFields(Vote, (t) => ({
  onBehalfOf: t.string({
    nullable: true,
    description: 'A delegate’s vote: the person it counts for (`by` is the delegate).',
    resolve: (v) => v.onBehalfOf ?? null,
  }),
}));

builder.objectFields(Viewer, (t) => ({
  delegation: t.field({
    type: Delegation,
    nullable: true,
    description: 'The caller’s live delegation; null: none.',
    resolve: (p, _args, ctx) => ctx.engine.presence.delegations.get(p),
  }),
  actingFor: t.stringList({
    description: 'The people whose questions the caller receives now by delegation.',
    resolve: (p, _args, ctx) => ctx.engine.presence.delegations.actingFor(p.id),
  }),
  notificationPrefs: t.field({
    type: NotificationPrefs,
    description: 'The caller’s quiet hours and digest.',
    resolve: (p, _args, ctx) => ctx.engine.presence.prefs.get(p.id),
  }),
}));
