// OutboxDeadLetter(s): follow-ups the outbox gave up, as admins see them (`tai outbox dead`).
import type { DeadLetterList, DeadLetterView } from '../../domain/dead-letter.ts';
import { builder } from '../builder.ts';
import { DateTime } from '../scalars.ts';

export const OutboxDeadLetter = builder.objectRef<DeadLetterView>('OutboxDeadLetter').implement({
  description:
    'A follow-up (a resume webhook, a channel message edit) the outbox gave up: after its last attempt, on a 410, or with no handler. It never carries a secret or an answer.',
  fields: (t) => ({
    id: t.exposeString('id', {
      description: 'The outbox item id, `<questionId>:<kind>:<target>` (the webhook-id is derived from it).',
    }),
    questionId: t.exposeString('questionId', { description: 'The question whose resolution enqueued it.' }),
    kind: t.exposeString('kind', {
      description: '`webhook` (a resume webhook) or `channel` (a message edit).',
    }),
    target: t.exposeString('target', { description: 'The webhook endpoint or channel name.' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made, the last one included.' }),
    lastError: t.exposeString('lastError', {
      description: 'Why it was given up, e.g. `webhook runs answered 503; retries ended after 24 h`.',
    }),
    enqueuedAt: t.field({
      type: DateTime,
      description: 'When the resolution enqueued it.',
      resolve: (d) => d.enqueuedAt,
    }),
    droppedAt: t.field({ type: DateTime, description: 'When it was given up.', resolve: (d) => d.droppedAt }),
  }),
});

export const OutboxDeadLetters = builder.objectRef<DeadLetterList>('OutboxDeadLetters').implement({
  description: 'The dead letters kept now (for the retention period, at most 10,000), newest first.',
  fields: (t) => ({
    totalCount: t.exposeInt('totalCount', { description: 'How many dead letters are kept now.' }),
    items: t.field({
      type: [OutboxDeadLetter],
      description: 'The newest `first` of them.',
      resolve: (l) => l.items,
    }),
  }),
});
