// Mutation fields: each parses its arguments and calls one engine method.
import { builder } from '../builder.ts';
import { askUser } from '../held-calls.ts';
import { holdSecondsRange, timeoutSecondsRange } from '../ranges.ts';
import { JSONScalar } from '../scalars.ts';
import { AskResult } from '../types/ask-result.ts';
import { AskUserInput } from '../types/ask-user-input.ts';
import { PolicyRuleInput, PolicyRuleType } from '../types/policy.ts';
import { PreparedExternal } from '../types/prepared-external.ts';
import { Question } from '../types/question.ts';

/** GraphQL input objects as plain JSON for the domain: absent and null fields are left out. */
function plainInput(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    if (key === 'verifier') out[key] = plainInput(v as object);
    else if (key === 'media' && Array.isArray(v)) out[key] = v.map((item: object) => plainInput(item));
    else out[key] = v;
  }
  return out;
}

builder.mutationFields((t) => ({
  askUser: t.field({
    type: AskResult,
    description:
      'Asks a question, then waits up to `holdSeconds` for its answer. Returns PENDING when the hold ends first: continue with `awaitAnswer`.',
    authScopes: { agent: true },
    args: {
      input: t.arg({ type: AskUserInput, required: true, description: 'The question.' }),
      holdSeconds: t.arg.int({
        description: 'Longest wait, 0 to 3600 seconds; 0 returns at once. Default from the server.',
        validate: holdSecondsRange,
      }),
      preparedId: t.arg.id({
        description: 'The id from `prepareExternal`: the question takes that id and its callback URL.',
      }),
    },
    resolve: (_root, { input, holdSeconds, preparedId }, ctx, info) =>
      askUser(ctx, info, plainInput(input), {
        holdSeconds,
        preparedId: preparedId == null ? null : String(preparedId),
        signal: ctx.signal,
        trace: ctx.trace ?? null,
      }),
  }),
  prepareExternal: t.field({
    type: PreparedExternal,
    description:
      'Reserves a question id and its callback URL, to build an external resource before asking (`askUser(preparedId)`).',
    authScopes: { agent: true },
    args: {
      timeoutSeconds: t.arg.int({
        description: 'How long the reservation lives, 1 to 31536000 seconds; default from the server.',
        validate: timeoutSecondsRange,
      }),
    },
    resolve: (_root, { timeoutSeconds }, ctx) => ctx.engine.prepareExternal(ctx.principal, timeoutSeconds),
  }),
  answer: t.field({
    type: Question,
    description:
      'Answers a TEXT, CONFIRM, SELECT, FORM or APPROVAL question. The answer is checked against the question; exactly one answer wins. On a question with a quorum it is a vote: the question is returned still PENDING until the quorum decides.',
    // Not an operator gate: the engine answers NOT_FOUND for a question the caller cannot see
    // before it checks the role (API.md §2, no existence oracle).
    authScopes: { authenticated: true },
    args: {
      id: t.arg.id({ required: true, description: 'The question’s id.' }),
      answer: t.arg({
        type: JSONScalar,
        required: true,
        description:
          'TEXT: a string; CONFIRM: a boolean; SELECT: one of the options; FORM: an object; APPROVAL: {decision, arguments?, note?, grant?} — `grant: {scope, seconds, maxUses?}` with an approval allows the same for a while (API.md §20).',
      }),
    },
    resolve: (_root, { id, answer }, ctx) => ctx.engine.answer(ctx.principal, String(id), answer),
  }),
  cancelQuestion: t.field({
    type: Question,
    description: 'Cancels a pending question; its waiters return CANCELLED and later answers are refused.',
    authScopes: { $any: { agent: true, operator: true } },
    args: {
      id: t.arg.id({ required: true, description: 'The question’s id.' }),
      reason: t.arg.string({ description: 'Why, shown with the question (at most 1000 characters).' }),
    },
    resolve: (_root, { id, reason }, ctx) => ctx.engine.cancel(ctx.principal, String(id), reason),
  }),
  putPolicyRule: t.field({
    type: PolicyRuleType,
    description:
      'Creates or replaces a store policy rule (a new version), audited as POLICY_CHANGED. Admins only.',
    authScopes: { admin: true },
    args: { input: t.arg({ type: PolicyRuleInput, required: true, description: 'The rule, as a whole.' }) },
    resolve: (_root, { input }, ctx) => ctx.engine.policyRules.put(ctx.principal, input),
  }),
  deletePolicyRule: t.boolean({
    description:
      'Deletes a store policy rule; false when there was none. A manifest rule is BAD_USER_INPUT. Admins only.',
    authScopes: { admin: true },
    args: { id: t.arg.id({ required: true, description: 'The store rule’s id.' }) },
    resolve: (_root, { id }, ctx) => ctx.engine.policyRules.delete(ctx.principal, String(id)),
  }),
  revokeGrant: t.boolean({
    description:
      'Ends a grant at once (GRANT_REVOKED); false when there is none. The person who gave it, or an admin.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'The grant’s id (from myGrants or policies).' }) },
    resolve: (_root, { id }, ctx) => ctx.engine.grants.revoke(ctx.principal, String(id)),
  }),
  adoptPolicySuggestion: t.field({
    type: PolicyRuleType,
    description:
      'Creates a suggestion’s rule as a store rule in SHADOW (audited as POLICY_CHANGED). Admins only.',
    authScopes: { admin: true },
    args: { key: t.arg.string({ required: true, description: 'The suggestion’s key.' }) },
    resolve: (_root, { key }, ctx) => ctx.engine.policySuggestions.adopt(ctx.principal, key),
  }),
}));
