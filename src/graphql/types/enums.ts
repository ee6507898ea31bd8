// The enums of API.md §4.
import type { AnswerFormat as DomainFormat } from '../../domain/question.ts';
import { builder } from '../builder.ts';

export const AnswerFormat = builder.enumType('AnswerFormat', {
  description: 'What kind of answer a question takes.',
  values: {
    TEXT: { description: 'Free text: the answer is a non-blank string.' },
    CONFIRM: { description: 'Yes or no: the answer is a boolean.' },
    SELECT: { description: 'One of `options`: the answer is the chosen option, as a string.' },
    FORM: { description: 'A JSON object valid against the question’s JSON Schema.' },
    EXTERNAL: {
      description:
        'Answered outside the client: the person visits `link` and the provider posts the answer to the callback URL.',
    },
    APPROVAL: {
      description:
        'May the agent do this? The question carries an `action`; the answer is {decision, arguments?, note?}.',
    },
    // One description per format of the domain's list: a new format fails to compile here.
  } as const satisfies Record<DomainFormat, { description: string }>,
});

export const MediaKind = builder.enumType('MediaKind', {
  description: 'What a media item shows.',
  values: {
    IMAGE: { description: 'An image: an https URL or a data:image/* URI.' },
    LINK: { description: 'A link to open: an http(s) URL.' },
  } as const,
});

export const QuestionStatus = builder.enumType('QuestionStatus', {
  description: 'Where a question is in its life.',
  values: {
    PENDING: { description: 'Waiting for an answer.' },
    ANSWERED: { description: 'Answered; the answer is recorded.' },
    TIMED_OUT: { description: 'Nobody answered before `timeoutAt`.' },
    CANCELLED: { description: 'Cancelled by its asker or an operator.' },
  } as const,
});

export const InboxEventType = builder.enumType('InboxEventType', {
  description: 'What an inbox feed event says.',
  values: {
    SNAPSHOT: { description: 'Every pending question the caller may see, sent first on every (re)connect.' },
    ASKED: { description: 'A question was asked.' },
    UPDATED: {
      description:
        'A pending question changed and is still pending (a vote was cast, §15; an escalation step fired, §18): replace the one you hold.',
    },
    ANSWERED: { description: 'A question was answered.' },
    TIMED_OUT: { description: 'A question timed out.' },
    CANCELLED: { description: 'A question was cancelled.' },
  } as const,
});

export const Decision = builder.enumType('Decision', {
  description: 'What an APPROVAL (or CONFIRM) question decided, or what one vote said.',
  values: {
    APPROVED: { description: 'Approved: the agent may act (with `answer.arguments` for APPROVAL).' },
    REJECTED: { description: 'Rejected: the agent must not act.' },
  } as const,
});

export const ActionAssurance = builder.enumType('ActionAssurance', {
  description: 'How sure the server must be that the approver is present (API.md §23).',
  values: {
    STANDARD: { description: 'Any door that may answer may approve.' },
    HIGH: {
      description:
        'Approving needs a fresh user-verifying passkey assertion in the inbox; other doors refuse with STEP_UP_REQUIRED (a rejection needs none).',
    },
  },
});
