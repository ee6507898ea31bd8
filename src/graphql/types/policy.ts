// Policy rules in GraphQL (API.md §20): their effects and modes, and what a question records
// of the rules that decided it or watched it in shadow.
import type {
  POLICY_EFFECTS,
  POLICY_MODES,
  PolicyAsk as PolicyAskSpec,
  PolicyMatch,
  PolicyRule,
} from '../../domain/policy/rule.ts';
import type { ShadowReport } from '../../domain/policy/shadow.ts';
import type { PolicyRef } from '../../domain/question.ts';
import { builder } from '../builder.ts';
import { DateTime, JSONObjectScalar } from '../scalars.ts';
import { Quorum } from './approval.ts';
import { QuorumInput } from './approval-inputs.ts';

export const PolicyEffect = builder.enumType('PolicyEffect', {
  description: 'What a rule does with an APPROVAL question it matches.',
  values: {
    ALLOW: { description: 'Approve it at once, without asking anyone.' },
    DENY: { description: 'Reject it at once, without asking anyone.' },
    ASK: {
      description: 'Ask a person, with the rule’s added scrutiny (quorum, audience, channel, escalation).',
    },
  } satisfies Record<(typeof POLICY_EFFECTS)[number], unknown>,
});

export const PolicyMode = builder.enumType('PolicyMode', {
  description: 'Whether a rule decides, or only records what it would have decided.',
  values: {
    ENFORCE: { description: 'The rule applies.' },
    SHADOW: { description: 'The rule decides nothing; questions record what it would have done.' },
  } satisfies Record<(typeof POLICY_MODES)[number], unknown>,
});

export const AppliedPolicyRule = builder.objectRef<PolicyRef>('AppliedPolicyRule').implement({
  description: 'A rule that matched a question: which rule, which version, and what it does.',
  fields: (t) => ({
    ruleId: t.exposeString('ruleId', { description: 'The rule’s id.' }),
    version: t.exposeString('version', { description: 'The rule’s version when the question was asked.' }),
    effect: t.expose('effect', { type: PolicyEffect, description: 'What the rule does (or would do).' }),
  }),
});

const PolicyMatchRef = builder.objectRef<PolicyMatch>('PolicyMatch').implement({
  description: 'Which APPROVAL questions a rule applies to: all of its conditions must hold.',
  fields: (t) => ({
    action: t.exposeString('action', {
      description: 'An action name, or a glob where `*` stands for any run of characters (dots included).',
    }),
    askers: t.exposeStringList('askers', { nullable: true, description: 'Principal ids; null: any asker.' }),
    arguments: t.field({
      type: JSONObjectScalar,
      nullable: true,
      description: 'A JSON Schema the proposed arguments must satisfy; null: any arguments.',
      resolve: (m) => m.arguments,
    }),
  }),
});

const PolicyAskRef = builder.objectRef<PolicyAskSpec>('PolicyAsk').implement({
  description:
    'What an ASK rule adds: it replaces the agent’s routing where given and never lowers a quorum.',
  fields: (t) => ({
    quorum: t.field({
      type: Quorum,
      nullable: true,
      description: 'The quorum it needs at least.',
      resolve: (a) => a.quorum,
    }),
    audience: t.exposeString('audience', {
      nullable: true,
      description: 'Who may answer instead of the agent’s audience.',
    }),
    channel: t.exposeString('channel', {
      nullable: true,
      description: 'The channel it is delivered to instead.',
    }),
    escalationPolicy: t.exposeString('escalationPolicy', {
      nullable: true,
      description: 'A manifest escalation policy that replaces the agent’s ladder.',
    }),
    assurance: t.exposeString('assurance', {
      nullable: true,
      description:
        '`HIGH`: the approver must step up (API.md §23), whatever the agent asked; `STANDARD` or null: as asked.',
    }),
    requireSeparateRequester: t.exposeBoolean('requireSeparateRequester', {
      description: 'The person the agent acts for (`action.requestedBy`) may not approve it (API.md §22).',
    }),
  }),
});

export const PolicyRuleType = builder.objectRef<PolicyRule>('PolicyRule').implement({
  description: 'A rule that decides routine APPROVAL questions, or adds scrutiny to them (API.md §20).',
  fields: (t) => ({
    id: t.exposeID('id', { description: '1 to 64 characters of a-z 0-9 -.' }),
    version: t.exposeString('version', {
      description:
        'Manifest rules: `sha256:` of the rule’s JCS. Store rules: a counter that rises on every put.',
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'What it is for, for people.',
    }),
    effect: t.expose('effect', { type: PolicyEffect, description: 'What it does.' }),
    mode: t.expose('mode', { type: PolicyMode, description: 'Whether it decides or only records.' }),
    match: t.field({ type: PolicyMatchRef, description: 'What it applies to.', resolve: (r) => r.match }),
    ask: t.field({
      type: PolicyAskRef,
      nullable: true,
      description: 'ASK rules: the added scrutiny.',
      resolve: (r) => r.ask,
    }),
    source: t.exposeString('source', {
      description: '`manifest`, `store`, or `grant` (given by a person while approving; see `myGrants`).',
    }),
    createdBy: t.exposeString('createdBy', {
      nullable: true,
      description: 'Store rules: the admin who last put it.',
    }),
    createdAt: t.field({
      type: DateTime,
      nullable: true,
      description: 'Store rules: when it was last put.',
      resolve: (r) => r.createdAt,
    }),
    expiresAt: t.field({
      type: DateTime,
      nullable: true,
      description: 'When it stops applying; null: never.',
      resolve: (r) => r.expiresAt,
    }),
  }),
});

const PolicyMatchInput = builder.inputType('PolicyMatchInput', {
  description: 'Which APPROVAL questions a rule applies to.',
  fields: (t) => ({
    action: t.string({
      required: true,
      description: 'An action name or a glob (`*` is any run of characters).',
    }),
    askers: t.stringList({ description: 'Principal ids, at most 100; absent: any asker.' }),
    arguments: t.field({
      type: JSONObjectScalar,
      description: 'A JSON Schema the arguments must satisfy (the limits of a question’s `schema`).',
    }),
  }),
});

const PolicyAskInput = builder.inputType('PolicyAskInput', {
  description: 'ASK rules: the scrutiny added to the question.',
  fields: (t) => ({
    quorum: t.field({
      type: QuorumInput,
      description: 'The quorum it needs at least (a lower one is ignored).',
    }),
    audience: t.string({ description: 'Who may answer.' }),
    channel: t.string({ description: 'A channel of the manifest it is delivered to.' }),
    escalationPolicy: t.string({ description: 'An escalation policy of the manifest.' }),
    assurance: t.string({ description: '`STANDARD` or `HIGH` (the approver must step up, API.md §23).' }),
    requireSeparateRequester: t.boolean({
      description: 'The person the agent acts for may not approve it (API.md §22).',
    }),
  }),
});

export const PolicyRuleInput = builder.inputType('PolicyRuleInput', {
  description: 'A store policy rule to create or replace.',
  fields: (t) => ({
    id: t.id({ required: true, description: '1 to 64 characters of a-z 0-9 -.' }),
    description: t.string({ description: 'At most 500 characters.' }),
    effect: t.field({ type: PolicyEffect, required: true, description: 'What it does.' }),
    mode: t.field({
      type: PolicyMode,
      defaultValue: 'ENFORCE',
      description: 'Start with SHADOW to see what it would do.',
    }),
    match: t.field({ type: PolicyMatchInput, required: true, description: 'What it applies to.' }),
    ask: t.field({ type: PolicyAskInput, description: 'ASK rules only.' }),
    expiresAt: t.field({ type: DateTime, description: 'When it stops applying.' }),
  }),
});

export const PolicyShadowReportType = builder.objectRef<ShadowReport>('PolicyShadowReport').implement({
  description:
    'How people decided the questions a SHADOW rule watched, over the questions still kept: an ALLOW agrees with an unedited approval, a DENY with a rejection.',
  fields: (t) => ({
    ruleId: t.exposeString('ruleId', { description: 'The rule.' }),
    agreements: t.exposeInt('agreements', { description: 'People decided as the rule would have.' }),
    disagreements: t.exposeInt('disagreements', {
      description: 'People decided otherwise (an edited approval disagrees with ALLOW).',
    }),
    pending: t.exposeInt('pending', { description: 'Not decided yet.' }),
    undecided: t.exposeInt('undecided', { description: 'Timed out or cancelled: nobody decided.' }),
  }),
});
