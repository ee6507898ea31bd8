// Query fields: each parses its arguments and calls one engine method.
import { DEFAULT_DEAD_LETTERS_LISTED } from '../../domain/dead-letter.ts';
import { builder } from '../builder.ts';
import { awaitAnswer } from '../held-calls.ts';
import { auditFirstRange, deadLettersFirstRange, firstRange, holdSecondsRange } from '../ranges.ts';
import { DateTime } from '../scalars.ts';
import { AskResult } from '../types/ask-result.ts';
import { AuditConnection, AuditFilter } from '../types/audit.ts';
import { ChannelDetail } from '../types/channel-detail.ts';
import { OutboxDeadLetters } from '../types/dead-letter.ts';
import { DecisionStatsRowType, StatsGroupBy } from '../types/decision-stats.ts';
import { GrantType, PolicySuggestionType } from '../types/grant.ts';
import { PolicyRuleType, PolicyShadowReportType } from '../types/policy.ts';
import { Question } from '../types/question.ts';
import { QuestionConnection } from '../types/question-connection.ts';
import { QuestionFilter } from '../types/question-filter.ts';
import { Viewer } from '../types/viewer.ts';

builder.queryFields((t) => ({
  question: t.field({
    type: Question,
    nullable: true,
    description: 'One question, or null when there is none the caller may see.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'The question’s id.' }) },
    resolve: (_root, { id }, ctx) => ctx.engine.get(ctx.principal, String(id)),
  }),
  questions: t.field({
    type: QuestionConnection,
    description: 'Questions the caller may see, newest first, filtered before paging.',
    authScopes: { authenticated: true },
    args: {
      filter: t.arg({ type: QuestionFilter, description: 'Which questions; all of them when omitted.' }),
      first: t.arg.int({
        defaultValue: 50,
        description: 'Page size, 1 to 200.',
        validate: firstRange,
      }),
      after: t.arg.string({ description: 'The `endCursor` of the previous page.' }),
    },
    resolve: (_root, { filter, first, after }, ctx) =>
      ctx.engine.list(
        ctx.principal,
        {
          status: filter?.status ?? null,
          groupId: filter?.groupId ?? null,
          audience: filter?.audience ?? null,
          channel: filter?.channel ?? null,
        },
        { first: first ?? 50, after: after ?? null },
      ),
  }),
  awaitAnswer: t.field({
    type: AskResult,
    description:
      'Waits up to `holdSeconds` for the question to leave PENDING, then returns its state (PENDING if the hold ended first).',
    authScopes: { authenticated: true },
    args: {
      id: t.arg.id({ required: true, description: 'The question’s id.' }),
      holdSeconds: t.arg.int({
        description: 'Longest wait, 0 to 3600 seconds; 0 returns at once. Default from the server.',
        validate: holdSecondsRange,
      }),
    },
    resolve: (_root, { id, holdSeconds }, ctx, info) =>
      awaitAnswer(ctx, info, String(id), { holdSeconds, signal: ctx.signal }),
  }),
  channels: t.stringList({
    description: 'Names of the channels this server can deliver questions through.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.engine.channels(),
  }),
  channelDetails: t.field({
    type: [ChannelDetail],
    description: 'The channels this server can deliver questions through, with their plugin and readiness.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.engine.channelDetails(),
  }),
  outboxDeadLetters: t.field({
    type: OutboxDeadLetters,
    description:
      'Follow-ups the outbox gave up (resume webhooks, channel message edits), newest first. Needs the admin role.',
    authScopes: { admin: true },
    args: {
      first: t.arg.int({
        defaultValue: DEFAULT_DEAD_LETTERS_LISTED,
        description: 'How many, 1 to 1000.',
        validate: deadLettersFirstRange,
      }),
    },
    resolve: (_root, { first }, ctx) => ctx.engine.outboxDeadLetters(ctx.principal, first),
  }),
  policies: t.field({
    type: [PolicyRuleType],
    description: 'Every policy rule: the manifest’s and the store’s. Needs the admin or auditor role.',
    authScopes: { auditor: true },
    resolve: (_root, _args, ctx) => ctx.engine.policyRules.list(ctx.principal),
  }),
  policyShadowReport: t.field({
    type: PolicyShadowReportType,
    description: 'How often people agreed with a SHADOW rule. Needs the admin or auditor role.',
    authScopes: { auditor: true },
    args: { ruleId: t.arg.id({ required: true, description: 'The SHADOW rule’s id.' }) },
    resolve: (_root, { ruleId }, ctx) => ctx.engine.policyShadowReport(ctx.principal, String(ruleId)),
  }),
  decisionStats: t.field({
    type: [DecisionStatsRowType],
    description:
      'The SLA view: over the questions asked in [since, until), how many were decided and by what, how long the decisions took and how old the pending ones are, one row per key (most asked first). Needs the operator, admin or auditor role; a restricted key counts its own audience only. Reaches back as far as questions are kept.',
    authScopes: { operator: true, auditor: true },
    args: {
      since: t.arg({
        type: DateTime,
        required: true,
        description: 'Questions asked at or after this moment.',
      }),
      until: t.arg({ type: DateTime, description: 'Questions asked before this moment; now when omitted.' }),
      groupBy: t.arg({ type: StatsGroupBy, required: true, description: 'What one row stands for.' }),
    },
    resolve: (_root, { since, until, groupBy }, ctx) =>
      ctx.engine.decisionStats(ctx.principal, {
        since: since.getTime(),
        until: until ? until.getTime() : null,
        groupBy,
      }),
  }),
  myGrants: t.field({
    type: [GrantType],
    description:
      'The active grants the caller gave while approving (API.md §20), with their ids for revokeGrant.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.engine.grants.mine(ctx.principal),
  }),
  policySuggestions: t.field({
    type: [PolicySuggestionType],
    description:
      'ALLOW rules the decided questions support: at least `minDecisions` approvals in the last `days`, none edited or rejected, by two or more people. Admins only.',
    authScopes: { admin: true },
    args: {
      minDecisions: t.arg.int({ defaultValue: 20, description: 'Approvals a group needs, 2 to 100000.' }),
      days: t.arg.int({
        defaultValue: 30,
        description: 'How far back, 1 to 3650 days (never past the questions’ retention).',
      }),
    },
    resolve: (_root, { minDecisions, days }, ctx) =>
      ctx.engine.policySuggestions.list(ctx.principal, minDecisions, days),
  }),
  auditLog: t.field({
    type: AuditConnection,
    description:
      'The hash-chained audit log (every question’s history), oldest first. Needs the admin or auditor role. A filter that matches rarely may give a short page with `hasNextPage` true: go on with `endCursor`.',
    authScopes: { auditor: true },
    args: {
      filter: t.arg({ type: AuditFilter, description: 'Which entries; all of them when omitted.' }),
      first: t.arg.int({
        defaultValue: 100,
        description: 'Page size, 1 to 1000.',
        validate: auditFirstRange,
      }),
      after: t.arg.string({ description: 'The `endCursor` of the previous page.' }),
    },
    resolve: (_root, { filter, first, after }, ctx) =>
      ctx.engine.audit.page(
        ctx.principal,
        {
          questionId: filter?.questionId == null ? null : String(filter.questionId),
          since: filter?.since ? filter.since.getTime() : null,
          until: filter?.until ? filter.until.getTime() : null,
          types: filter?.types ?? null,
        },
        { first: first ?? 100, after: after ?? null },
      ),
  }),
  viewer: t.field({
    type: Viewer,
    description: 'The caller.',
    resolve: (_root, _args, ctx) => ctx.principal,
  }),
}));
