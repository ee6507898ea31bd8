// An approval's use (API.md §23): Question.execution, its outcome enum, and the two mutations
// that write it (each calls one engine method).
import { EXECUTION_OUTCOMES, type Execution as ExecutionRecord } from '../../domain/execution.ts';
import { builder } from '../builder.ts';
import { DateTime, JSONObjectScalar } from '../scalars.ts';
import { Question } from './question.ts';

const OUTCOME_DESCRIPTIONS: Record<(typeof EXECUTION_OUTCOMES)[number], string> = {
  SUCCEEDED: 'The approved action ran and did what it should.',
  FAILED: 'The approved action was attempted and failed.',
};

export const ExecutionOutcome = builder.enumType('ExecutionOutcome', {
  description: 'What using an approval did.',
  values: Object.fromEntries(
    EXECUTION_OUTCOMES.map((o) => [o, { description: OUTCOME_DESCRIPTIONS[o] }]),
  ) as Record<(typeof EXECUTION_OUTCOMES)[number], object>,
});

export const Execution = builder.objectRef<ExecutionRecord>('Execution').implement({
  description: 'How an APPROVED question was used: consumed once, then its outcome reported once.',
  fields: (t) => ({
    consumedAt: t.field({
      type: DateTime,
      description: 'When it was consumed.',
      resolve: (x) => x.consumedAt,
    }),
    consumedBy: t.exposeString('consumedBy', { description: 'Who consumed it (the asker or an executor).' }),
    outcome: t.field({
      type: ExecutionOutcome,
      nullable: true,
      description: 'Null until reported.',
      resolve: (x) => x.outcome ?? null,
    }),
    reportedAt: t.field({
      type: DateTime,
      nullable: true,
      description: 'When the outcome was reported; null until then.',
      resolve: (x) => x.reportedAt ?? null,
    }),
    resultDigest: t.string({
      nullable: true,
      description: 'The reported result digest ("sha256:" + hex), if any.',
      resolve: (x) => x.resultDigest ?? null,
    }),
  }),
});

builder.objectField(Question, 'execution', (t) =>
  t.field({
    type: Execution,
    nullable: true,
    description: 'APPROVAL: how the approval was used (API.md §23); null until it is consumed.',
    resolve: (q) => q.execution ?? null,
  }),
);

builder.mutationFields((t) => ({
  consumeApproval: t.field({
    type: Question,
    description:
      'Uses an APPROVED question once (the asker or an executor), with its decision receipt; a second use is ALREADY_ANSWERED.',
    authScopes: { agent: true },
    args: {
      questionId: t.arg.id({ required: true, description: 'The question’s id.' }),
      receipt: t.arg.string({ required: true, description: 'The question’s decision receipt.' }),
      actionDigest: t.arg.string({
        description: 'The digest of the action about to run; must be the approved one.',
      }),
    },
    resolve: (_root, a, ctx) =>
      ctx.engine.consumeApproval(ctx.principal, String(a.questionId), a.receipt, a.actionDigest ?? null),
  }),
  reportExecution: t.field({
    type: Question,
    description: 'Reports, once, what a consumed approval did.',
    authScopes: { agent: true },
    args: {
      questionId: t.arg.id({ required: true, description: 'The question’s id.' }),
      outcome: t.arg({ type: ExecutionOutcome, required: true, description: 'What running it did.' }),
      resultDigest: t.arg.string({ description: '"sha256:" + 64 hex digits of the result, if any.' }),
      detail: t.arg({
        type: JSONObjectScalar,
        description: 'Small facts about the run, at most 8 KiB as JSON.',
      }),
    },
    resolve: (_root, a, ctx) =>
      ctx.engine.reportExecution(ctx.principal, String(a.questionId), a.outcome, a.resultDigest, a.detail),
  }),
}));
