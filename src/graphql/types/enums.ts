// The enums of API.md §4.
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
  } as const,
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
      description: 'A pending question changed and is still pending (e.g. an escalation step fired).',
    },
    ANSWERED: { description: 'A question was answered.' },
    TIMED_OUT: { description: 'A question timed out.' },
    CANCELLED: { description: 'A question was cancelled.' },
  } as const,
});
