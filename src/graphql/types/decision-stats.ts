// The SLA view's types (API.md §24): one row per key of the chosen grouping.
import type { PendingAge, DecisionStatsRow as Row, TimeToDecision } from '../../domain/decision-stats.ts';
import { builder } from '../builder.ts';

export const StatsGroupBy = builder.enumType('StatsGroupBy', {
  description: 'What decisionStats groups its rows by.',
  values: {
    ASKER: { description: 'The asking principal.' },
    ACTION: { description: 'The approval’s action name (null key: questions without an action).' },
    PERSON: {
      description:
        'Who decided (null key: questions not decided by a person: pending, timed out, cancelled, or decided by a rule).',
    },
    GROUP: {
      description:
        'The people groups a question was routed to (`group:<id>` as audience or voter); a question routed to several counts in each (null key: none).',
    },
    CHANNEL: { description: 'The channel it was asked through (null key: asked in-client).' },
  } as const,
});

const TimeToDecisionType = builder.objectRef<TimeToDecision>('TimeToDecision').implement({
  description:
    'Seconds from ask to decision, over the questions a person, a rule or a grant decided (nearest-rank percentiles); null when none was decided.',
  fields: (t) => ({
    p50: t.float({ nullable: true, description: 'The median.', resolve: (d) => d.p50 }),
    p90: t.float({ nullable: true, description: 'The 90th percentile.', resolve: (d) => d.p90 }),
    max: t.float({ nullable: true, description: 'The longest.', resolve: (d) => d.max }),
  }),
});

const PendingAgeType = builder.objectRef<PendingAge>('PendingAge').implement({
  description: 'How many of the row’s questions are still pending and older than an age.',
  fields: (t) => ({
    olderThanSeconds: t.exposeInt('olderThanSeconds', {
      description: 'The age, in seconds (0 counts every pending question).',
    }),
    count: t.exposeInt('count', { description: 'Pending questions asked longer ago than that.' }),
  }),
});

export const DecisionStatsRowType = builder.objectRef<Row>('DecisionStatsRow').implement({
  description: 'The questions of one key asked in the window: how they were decided, and how fast.',
  fields: (t) => ({
    key: t.string({
      nullable: true,
      description: 'The group’s key (an asker, an action, a person, a group id, a channel); null: none.',
      resolve: (r) => r.key,
    }),
    asked: t.exposeInt('asked', { description: 'Questions asked in the window.' }),
    decidedByPerson: t.exposeInt('decidedByPerson', { description: 'Answered by a person.' }),
    decidedByPolicy: t.exposeInt('decidedByPolicy', { description: 'Decided by a policy rule.' }),
    decidedByGrant: t.exposeInt('decidedByGrant', {
      description: 'Decided by a grant a person gave earlier.',
    }),
    timedOut: t.exposeInt('timedOut', { description: 'Nobody answered in time.' }),
    cancelled: t.exposeInt('cancelled', { description: 'Cancelled.' }),
    pending: t.exposeInt('pending', { description: 'Still waiting.' }),
    timeToDecisionSeconds: t.field({
      type: TimeToDecisionType,
      description: 'How long the decisions took.',
      resolve: (r) => r.timeToDecisionSeconds,
    }),
    pendingByAge: t.field({
      type: [PendingAgeType],
      description: 'The pending ones by age: older than 0 s, 1 min, 5 min, 15 min, 1 h, 4 h and 1 day.',
      resolve: (r) => r.pendingByAge,
    }),
  }),
});
