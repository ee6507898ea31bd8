// What an APPROVAL answer records about how it was given (API.md §23): the assurance an action
// asks for, what each approver was shown (`presentedDigest`) and their passkey step-up.
import type { QuestionRecord, Vote as VoteRecord } from '../../domain/question.ts';
import { builder } from '../builder.ts';
import { Action, Vote } from './approval.ts';
import { ActionAssurance } from './enums.ts';
import { Question } from './question.ts';

builder.objectField(Action, 'assurance', (t) =>
  t.field({
    type: ActionAssurance,
    description: 'What approving needs: STANDARD, or HIGH (a passkey step-up in the inbox).',
    resolve: (a) => a.assurance ?? 'STANDARD',
  }),
);

builder.objectFields(Vote, (t) => ({
  presentedDigest: t.string({
    nullable: true,
    description:
      'APPROVAL: "sha256:" of the JCS of {name, summary, arguments} as shown to this voter (API.md §23).',
    resolve: (v: VoteRecord) => v.presentedDigest ?? null,
  }),
  assurance: t.string({
    nullable: true,
    description: '"webauthn-uv" when the vote was given with a user-verifying passkey; null otherwise.',
    resolve: (v: VoteRecord) => v.assurance ?? null,
  }),
  credentialId: t.string({
    nullable: true,
    description: 'The passkey (base64url credential id) that signed the step-up, if any.',
    resolve: (v: VoteRecord) => v.credentialId ?? null,
  }),
}));

builder.objectFields(Question, (t) => ({
  presentedDigest: t.string({
    nullable: true,
    description:
      'APPROVAL: "sha256:" of the JCS of {name, summary, arguments} as shown to whoever decided it (API.md §23).',
    resolve: (q: QuestionRecord) => q.evidence?.presentedDigest ?? null,
  }),
  assurance: t.string({
    nullable: true,
    description: '"webauthn-uv" when the deciding answer was given with a user-verifying passkey.',
    resolve: (q: QuestionRecord) => q.evidence?.assurance ?? null,
  }),
  credentialId: t.string({
    nullable: true,
    description: 'The passkey (base64url credential id) behind the deciding answer’s step-up, if any.',
    resolve: (q: QuestionRecord) => q.evidence?.credentialId ?? null,
  }),
}));
