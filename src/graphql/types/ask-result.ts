// AskResult: what askUser, awaitAnswer and questionResolved return to the asker.
import type { AskResult as AskResultShape } from '../../engine/types.ts';
import { builder } from '../builder.ts';
import { JSONScalar } from '../scalars.ts';
import { QuestionStatus } from './enums.ts';
import { Question } from './question.ts';

export const AskResult = builder.objectRef<AskResultShape>('AskResult').implement({
  description: 'The state of a question when a wait ended, with the answer for the asker.',
  fields: (t) => ({
    question: t.field({ type: Question, description: 'The question.', resolve: (r) => r.question }),
    status: t.expose('status', {
      type: QuestionStatus,
      description: 'PENDING: the hold ended before an answer; call `awaitAnswer(question.id)` to wait on.',
    }),
    answer: t.field({
      type: JSONScalar,
      nullable: true,
      description: 'The answer, for the asker. A sensitive answer is delivered once; later reads give null.',
      resolve: (r) => r.answer ?? null,
    }),
    callbackUrl: t.string({
      nullable: true,
      description:
        'EXTERNAL and channel questions: the URL that records the answer. Shown once, to the asker only.',
      resolve: (r) => r.callbackUrl,
    }),
    receipt: t.string({
      nullable: true,
      description: 'The signed decision receipt once the question has left PENDING (as `Question.receipt`).',
      resolve: (r, _args, ctx) => ctx.engine.receipt(r.question),
    }),
  }),
});
