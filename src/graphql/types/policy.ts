// Policy rules in GraphQL (API.md §20): their effects and modes, and what a question records
// of the rules that decided it or watched it in shadow.

import type { POLICY_EFFECTS, POLICY_MODES } from '../../domain/policy/rule.ts';
import type { PolicyRef } from '../../domain/question.ts';
import { builder } from '../builder.ts';

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
