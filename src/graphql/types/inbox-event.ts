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
        'SNAPSHOT: the first part of the pending questions the caller may see, oldest first (the whole backlog when `more` is false); otherwise the one question that changed or, while `more` was true, the next question of the backlog.',
      resolve: (e) => e.questions,
    }),
    more: t.boolean({
      description:
        'True while the backlog continues: the SNAPSHOT and the ASKED events that carry the rest of it say whether another part follows; false on the last part and on every live change. A large backlog is sent in parts so that neither side holds it whole.',
      resolve: (e) => e.more,
    }),
  }),
});
