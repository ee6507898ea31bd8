// AskUserInput: a question to ask (validated as a whole by the domain, API.md §5.1).
import { builder } from '../builder.ts';
import { timeoutSecondsRange } from '../ranges.ts';
import { JSONObjectScalar } from '../scalars.ts';
import { ActionInput, QuorumInput } from './approval-inputs.ts';
import { AnswerFormat } from './enums.ts';
import { EscalationStepInput } from './escalation.ts';
import { MediaItemInput } from './media-item-input.ts';
import { VerifierInput } from './verifier-input.ts';

export const AskUserInput = builder.inputType('AskUserInput', {
  description: 'A question to ask a person. Everything is checked before anything is stored.',
  fields: (t) => ({
    text: t.string({ required: true, description: 'What to ask: non-blank, at most 8192 characters.' }),
    format: t.field({
      type: AnswerFormat,
      defaultValue: 'TEXT',
      description: 'What kind of answer it takes.',
    }),
    options: t.stringList({
      description: 'SELECT only (and required there): 1 to 100 distinct, non-blank options.',
    }),
    schema: t.field({
      type: JSONObjectScalar,
      description:
        'A JSON Schema for the answer: required for FORM (with "type": "object" at its root), optional for EXTERNAL.',
    }),
    link: t.string({
      description:
        'EXTERNAL: a URL template holding the literal {callback_url}, replaced by the callback URL. With `preparedId`, the final URL.',
    }),
    verifier: t.field({
      type: VerifierInput,
      description: 'EXTERNAL only: a webhook verifier that must accept every callback. Not with `channel`.',
    }),
    channel: t.string({ description: 'A registered channel that delivers the question (see `channels`).' }),
    recipient: t.string({ description: 'Who the channel delivers to; requires `channel`.' }),
    audience: t.string({
      description: 'The principal id the question is for; a restricted key may only name itself.',
    }),
    groupId: t.string({ description: 'A label to group related questions.' }),
    media: t.field({
      type: [MediaItemInput],
      description: 'Up to 8 images and links to show with the question. Omit rather than send an empty list.',
    }),
    timeoutSeconds: t.int({
      description: 'How long the question stays answerable, 1 to 31536000 seconds; default from the server.',
      validate: timeoutSecondsRange,
    }),
    sensitive: t.boolean({
      defaultValue: false,
      description: 'The answer reaches only the asker, once, and is never stored, shown or logged.',
    }),
    idempotencyKey: t.string({
      description:
        'Same asker and same key: the same question, never a second one (kept for the retention period).',
    }),
    metadata: t.field({
      type: JSONObjectScalar,
      description:
        'Your own JSON object (e.g. a run id), at most 4096 bytes as UTF-8 JSON: returned on the question, in events and in resume webhooks.',
    }),
    notify: t.string({
      description:
        'A resume-webhook endpoint named in the server manifest: it is called, signed, when the question resolves.',
    }),
    action: t.field({
      type: ActionInput,
      description: 'APPROVAL (required there, refused elsewhere): what the agent proposes to do.',
    }),
    quorum: t.field({
      type: QuorumInput,
      description:
        'APPROVAL and CONFIRM: several approvers; each answer is a vote. Not with an editable action needing more than one approval.',
    }),
    escalation: t.field({
      type: [EscalationStepInput],
      description:
        'Reminders and escalation (API.md §18): steps fired while nobody answers. Not with `escalationPolicy`.',
    }),
    escalationPolicy: t.string({
      description:
        'A named escalation policy of the server manifest (`escalationPolicies`). Not with `escalation`.',
    }),
  }),
});
