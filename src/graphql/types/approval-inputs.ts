// ActionInput and QuorumInput: what an APPROVAL question proposes and who decides it
// (API.md §15). Shapes only; the domain checks every limit (src/domain/approval.ts).
import { builder } from '../builder.ts';
import { JSONObjectScalar } from '../scalars.ts';
import { ActionAssurance } from './enums.ts';

export const ActionInput = builder.inputType('ActionInput', {
  description: 'What the agent proposes to do. Required for APPROVAL questions, refused for the others.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description:
        'What the agent wants to do: 1 to 100 characters of A-Z a-z 0-9 _ . : - (e.g. "payments.refund").',
    }),
    summary: t.string({ description: 'One line for people, at most 300 characters.' }),
    arguments: t.field({
      type: JSONObjectScalar,
      required: true,
      description: 'The proposed arguments, at most 64 KiB as JSON.',
    }),
    argumentsSchema: t.field({
      type: JSONObjectScalar,
      description:
        'A JSON Schema of the arguments (required when `editable`); the proposed arguments must be valid against it.',
    }),
    editable: t.boolean({
      defaultValue: false,
      description: 'May an approver change the arguments before approving?',
    }),
    executors: t.stringList({
      description:
        'Principal ids, besides the asker, that may read the question and consume the approval (at most 10).',
    }),
    validSeconds: t.int({
      description:
        'How long the approval may be consumed, counted from the decision: 1 to 2,592,000 seconds; absent: no limit.',
    }),
    requestedBy: t.string({
      description:
        'The person the agent acts for (an identity): they never answer or vote on it, nor do their delegates (separation of duties).',
    }),
    assurance: t.field({
      type: ActionAssurance,
      description:
        'HIGH: approving needs the approver’s passkey in the inbox (API.md §23); absent: STANDARD.',
    }),
  }),
});

export const QuorumInput = builder.inputType('QuorumInput', {
  description: 'Several approvers: APPROVAL and CONFIRM only. Each answer is a vote by its identity.',
  fields: (t) => ({
    approvals: t.int({ required: true, description: 'Distinct approvals that approve it, 1 to 20.' }),
    rejections: t.int({ defaultValue: 1, description: 'Distinct rejections that reject it, 1 to 20.' }),
    voters: t.stringList({
      description:
        'Who may vote (principal ids, "<channel>:<provider user id>", "callback"); absent: anyone who may answer it.',
    }),
  }),
});
