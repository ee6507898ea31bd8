// Grants and policy suggestions in GraphQL (API.md §20): what a person gave while approving
// (their own, for revokeGrant), and the ALLOW rules the history supports.

import type { StoredGrant } from '../../domain/policy/grant.ts';
import type { PolicySuggestion } from '../../domain/policy/suggest.ts';
import { builder } from '../builder.ts';
import { DateTime, JSONObjectScalar } from '../scalars.ts';

export const GrantType = builder.objectRef<StoredGrant>('Grant').implement({
  description:
    'An ALLOW given by a person while approving ("approve, and allow the same"): the same asker and action, and for SAME_ARGUMENTS exactly the approved arguments, until it expires, is used up or is revoked.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id (`grant-…`), for revokeGrant.' }),
    scope: t.exposeString('scope', { description: '`SAME_ARGUMENTS` or `SAME_ACTION`.' }),
    asker: t.exposeString('asker', { description: 'The agent whose asks it decides.' }),
    action: t.exposeString('action', { description: 'The action name it covers.' }),
    actionDigest: t.exposeString('actionDigest', {
      nullable: true,
      description: 'SAME_ARGUMENTS: the digest of {name, arguments} approved; null for SAME_ACTION.',
    }),
    questionId: t.exposeID('questionId', { description: 'The approval it was given with.' }),
    createdBy: t.exposeString('createdBy', { description: 'The person who gave it.' }),
    onBehalfOf: t.string({
      nullable: true,
      description:
        'The person it was given for, when its giver approved as their delegate: it decides nothing once that delegation ends.',
      resolve: (g) => g.onBehalfOf ?? null,
    }),
    createdAt: t.field({ type: DateTime, description: 'When it was given.', resolve: (g) => g.createdAt }),
    expiresAt: t.field({
      type: DateTime,
      description: 'When it stops applying.',
      resolve: (g) => g.expiresAt,
    }),
    maxUses: t.exposeInt('maxUses', {
      nullable: true,
      description: 'How many asks it may decide; null: until it expires.',
    }),
    uses: t.exposeInt('uses', { description: 'How many asks it decided so far.' }),
  }),
});

export const PolicySuggestionType = builder.objectRef<PolicySuggestion>('PolicySuggestion').implement({
  description:
    'An ALLOW rule the history supports: every decision of this asker, action and arguments’ shape in the window was an unedited approval, by two or more people.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'What adoptPolicySuggestion takes.' }),
    asker: t.exposeString('asker', { description: 'The agent that asked.' }),
    action: t.exposeString('action', { description: 'The action name.' }),
    decisions: t.exposeInt('decisions', { description: 'How many approvals the evidence holds.' }),
    firstAt: t.field({
      type: DateTime,
      description: 'The first approval of the window.',
      resolve: (s) => s.firstAt,
    }),
    lastAt: t.field({ type: DateTime, description: 'The last approval.', resolve: (s) => s.lastAt }),
    reviewers: t.exposeStringList('reviewers', { description: 'Who approved them.' }),
    arguments: t.field({
      type: JSONObjectScalar,
      description:
        'The argument schema inferred from the approvals: strings as an enum of the values seen, numbers up to the largest approved.',
      resolve: (s) => s.arguments,
    }),
    rule: t.field({
      type: JSONObjectScalar,
      description: 'The rule adopting it creates (a PolicyRuleInput, in SHADOW).',
      resolve: (s) => s.rule,
    }),
  }),
});
