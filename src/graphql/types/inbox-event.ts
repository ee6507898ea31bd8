// InboxEvent: one event of the pendingQuestions feed.
import type { FeedEvent } from '../../engine/types.ts';
import { builder } from '../builder.ts';
import { InboxEventType } from './enums.ts';
import { Question } from './question.ts';

export const InboxEvent = builder.objectRef<FeedEvent>('InboxEvent').implement({
  description: 'A change to the pending questions the caller may see.',
  fields: (t) => ({
    type: t.expose('type', { type: InboxEventType, description: 'What happened.' }),
    questions: t.field({
      type: [Question],
      description:
        'SNAPSHOT: every pending question the caller may see, oldest first; otherwise the one question that changed.',
      resolve: (e) => e.questions,
    }),
  }),
});
