// Action, Quorum and Vote: an APPROVAL question's proposal and the votes cast on it (API.md §15).
import type { ActionSpec, QuorumSpec, Vote as VoteRecord } from '../../domain/question.ts';
import { builder } from '../builder.ts';
import { DateTime, JSONObjectScalar } from '../scalars.ts';
import { Decision } from './enums.ts';

export const Action = builder.objectRef<ActionSpec>('Action').implement({
  description: 'What the agent proposes to do, as asked.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'What the agent wants to do.' }),
    summary: t.exposeString('summary', { nullable: true, description: 'One line for people.' }),
    arguments: t.field({
      type: JSONObjectScalar,
      description: 'The proposed arguments (the approved ones are in `Question.answer.arguments`).',
      resolve: (a) => a.arguments,
    }),
    argumentsSchema: t.field({
      type: JSONObjectScalar,
      nullable: true,
      description: 'The JSON Schema of the arguments, if given.',
      resolve: (a) => a.argumentsSchema,
    }),
    editable: t.exposeBoolean('editable', { description: 'May an approver change the arguments?' }),
    digest: t.exposeString('digest', {
      description:
        '"sha256:" + hex SHA-256 of the RFC 8785 (JCS) canonical JSON of {"name", "arguments"} as proposed.',
    }),
    executors: t.stringList({
      nullable: true,
      description: 'Principals besides the asker that may consume the approval; null: the asker only.',
      resolve: (a) => a.executors ?? null,
    }),
    validSeconds: t.int({
      nullable: true,
      description: 'How long the approval may be consumed, counted from the decision; null: no limit.',
      resolve: (a) => a.validSeconds ?? null,
    }),
    requestedBy: t.string({
      nullable: true,
      description: 'The person the agent acts for; they never answer or vote on it, nor do their delegates.',
      resolve: (a) => a.requestedBy ?? null,
    }),
    requireSeparateRequester: t.boolean({
      description:
        'A policy rule demands separation of duties: nobody on the asking side decides it, admins included.',
      resolve: (a) => a.requireSeparateRequester === true,
    }),
  }),
});

export const Quorum = builder.objectRef<QuorumSpec>('Quorum').implement({
  description: 'How many distinct votes decide the question, and who may cast them.',
  fields: (t) => ({
    approvals: t.exposeInt('approvals', { description: 'Distinct approvals that approve it.' }),
    rejections: t.exposeInt('rejections', { description: 'Distinct rejections that reject it.' }),
    voters: t.exposeStringList('voters', {
      nullable: true,
      description: 'Who may vote; null: anyone who may answer it.',
    }),
  }),
});

export const Vote = builder.objectRef<VoteRecord>('Vote').implement({
  description: 'One vote on a question with a quorum.',
  fields: (t) => ({
    by: t.exposeString('by', {
      description: 'Who voted: a principal id, "<channel>:<provider user id>", or "callback".',
    }),
    byName: t.string({
      nullable: true,
      description: 'The voter’s name, where one is known (API.md §19); `by` stays the stable id.',
      resolve: (v, _args, ctx) => ctx.engine.nameOf(v.by),
    }),
    via: t.exposeString('via', { description: 'The door: "api", "callback" or "channel:<name>".' }),
    decision: t.expose('decision', { type: Decision, description: 'Approve or reject.' }),
    note: t.exposeString('note', { nullable: true, description: 'The voter’s note, if any.' }),
    at: t.field({ type: DateTime, description: 'When the vote was cast.', resolve: (v) => v.at }),
  }),
});
